package dev.corobridge.demo.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;

import dev.corobridge.demo.board.Change;

/**
 * The file surgery of {@link Journal#open}, done with plain blocking file channels at start-up:
 * keeping bytes beside the journal, cutting a torn tail, and replacing the journal with a rewritten
 * one. Every step is durable before the next ({@code fsync} of the file, then of the directory),
 * and the journal's name always points at a complete file: at any crash point it is the old file
 * or the new one. A step that fails deletes the file it was writing (a partial copy aside, a
 * partial rewrite), so a start retried after a failure (a full disk) finds nothing left over.
 * Stateless; not for concurrent use on one journal (start-up is single-threaded).
 */
final class JournalFiles {

    private static final DateTimeFormatter STAMP =
            DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);
    private static final int WRITE_CHUNK = 1 << 20;

    private JournalFiles() {
    }

    /** Writes {@code data[from, to)} to a new file {@code <journal>.<kind>-<time>} and returns it. */
    static Path keepAside(Path journal, String kind, byte[] data, int from, int to) throws IOException {
        Path aside = newSibling(journal, kind);
        try (FileChannel ch = FileChannel.open(aside, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.wrap(data, from, to - from);
            while (b.hasRemaining()) {
                ch.write(b);
            }
            ch.force(true);
            syncDirectory(journal);
        } catch (IOException | RuntimeException e) {
            deleteQuietly(aside, e); // a partial copy is no copy; a retried start makes a new one
            throw e;
        }
        return aside;
    }

    /** Deletes a file this class was making when {@code failure} happened; a failure to delete is added to it. */
    private static void deleteQuietly(Path file, Exception failure) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            failure.addSuppressed(e);
        }
    }

    /** Cuts the journal to {@code length} bytes; writes the file header if that leaves none. */
    static void cut(Path journal, long length) throws IOException {
        try (FileChannel ch = FileChannel.open(journal, StandardOpenOption.WRITE)) {
            ch.truncate(length);
            if (length == 0) {
                ch.write(ByteBuffer.wrap(JournalCodec.fileHeader()), 0);
            }
            ch.force(true);
        }
    }

    /** Gives an empty journal its file header. */
    static void initialise(Path journal) throws IOException {
        cut(journal, 0);
        syncDirectory(journal); // the file may be new
    }

    /**
     * Replaces the journal with a new one holding {@code changes} (numbered from 0, each its own
     * commit), after keeping the old file as {@code <journal>.<kind>-<time>}; returns that path.
     */
    static Path replace(Path journal, List<Change> changes, String kind) throws IOException {
        Path tmp = journal.resolveSibling(journal.getFileName() + ".rewrite");
        Files.deleteIfExists(tmp);
        try {
            writeRewrite(tmp, changes);
        } catch (IOException | RuntimeException e) {
            deleteQuietly(tmp, e);
            throw e;
        }
        Path aside = newSibling(journal, kind);
        try {
            Files.createLink(aside, journal); // the old bytes stay under the new name, no copy
        } catch (UnsupportedOperationException | IOException e) {
            try {
                Files.copy(journal, aside, StandardCopyOption.COPY_ATTRIBUTES);
                try (FileChannel ch = FileChannel.open(aside, StandardOpenOption.WRITE)) {
                    ch.force(true);
                }
            } catch (IOException | RuntimeException copyFailed) {
                deleteQuietly(aside, copyFailed);
                deleteQuietly(tmp, copyFailed);
                throw copyFailed;
            }
        }
        syncDirectory(journal);
        Files.move(tmp, journal, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        syncDirectory(journal);
        return aside;
    }

    /** Writes the rewritten journal to {@code tmp}, durably. */
    private static void writeRewrite(Path tmp, List<Change> changes) throws IOException {
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ByteBuffer buf = ByteBuffer.allocate(WRITE_CHUNK + JournalCodec.HEADER + JournalCodec.MAX_PAYLOAD);
            buf.put(JournalCodec.fileHeader());
            long number = 0;
            for (Change c : changes) {
                byte[] payload = JournalCodec.payload(c);
                JournalCodec.putRecord(buf, payload, JournalCodec.crc(payload, 0, payload.length), number++, 0, true);
                if (buf.position() >= WRITE_CHUNK) {
                    drain(ch, buf);
                }
            }
            drain(ch, buf);
            ch.force(true);
        }
    }

    private static void drain(FileChannel ch, ByteBuffer buf) throws IOException {
        buf.flip();
        while (buf.hasRemaining()) {
            ch.write(buf);
        }
        buf.clear();
    }

    /** {@code <journal>.<kind>-<time>}, with {@code -2}, {@code -3}, ... if that exists. */
    private static Path newSibling(Path journal, String kind) throws IOException {
        String base = journal.getFileName() + "." + kind + "-" + STAMP.format(Instant.now());
        for (int n = 1; n < 1000; n++) {
            Path p = journal.resolveSibling(n == 1 ? base : base + "-" + n);
            if (!Files.exists(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                return p;
            }
        }
        throw new FileAlreadyExistsException(journal.resolveSibling(base).toString(), null, "1000 files of that name exist");
    }

    /** Makes a creation, rename or link in the journal's directory durable (POSIX: fsync the directory). */
    private static void syncDirectory(Path journal) throws IOException {
        try (FileChannel dir = FileChannel.open(journal.toAbsolutePath().getParent(), StandardOpenOption.READ)) {
            dir.force(true);
        }
    }
}
