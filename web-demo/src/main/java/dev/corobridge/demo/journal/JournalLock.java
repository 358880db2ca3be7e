package dev.corobridge.demo.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A journal's claim on its file, held from {@link Journal#open} until the journal is closed: an
 * exclusive lock on {@code <journal>.lock} beside it, so that no second journal, in another process
 * or in this one, opens the same file and appends over changes the first one acknowledged.
 *
 * <p>The lock is the kernel's ({@code fcntl} through {@link FileChannel#tryLock()}): it ends with
 * the process however the process ends, so a crash or a {@code kill -9} leaves no stale claim to
 * clear by hand. The holder writes its process id into the file, for the refusal's message; the
 * file itself stays (removing it would race with the next opener). It is a separate file because
 * such a lock belongs to the process and the file, and closing any descriptor of the journal in this
 * process (the start-up's rewrites do) would drop a lock held on the journal itself. For the same
 * reason a second claim from this process is refused from a set of held paths before any
 * descriptor of the lock file is opened (closing that descriptor would drop the first claim).
 *
 * <p>Thread-safety: {@link #acquire} and {@link #release} may be called from any thread;
 * {@code release} is idempotent.
 */
final class JournalLock {

    /** The lock files this process holds (real paths). */
    private static final Set<Path> HELD = ConcurrentHashMap.newKeySet();

    private final Path lockFile;
    private final FileChannel channel;
    private boolean released;

    private JournalLock(Path lockFile, FileChannel channel) {
        this.lockFile = lockFile;
        this.channel = channel;
    }

    /** The lock file of {@code journal}: {@code <journal>.lock} in the same directory. */
    static Path lockFileOf(Path journal) {
        return journal.resolveSibling(journal.getFileName() + ".lock");
    }

    /**
     * Claims {@code journal} (its directory must exist).
     *
     * @throws JournalInUseException if another journal holds it, in this process or another
     * @throws IOException           if the lock file cannot be created, opened or locked
     */
    static JournalLock acquire(Path journal) throws IOException {
        Path dir = journal.toAbsolutePath().getParent().toRealPath();
        Path lockFile = lockFileOf(dir.resolve(journal.getFileName()));
        if (!HELD.add(lockFile)) {
            throw new JournalInUseException(journal, OptionalLong.of(ProcessHandle.current().pid()));
        }
        FileChannel channel = null;
        try {
            channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
            FileLock lock = channel.tryLock();
            if (lock == null) {
                throw new JournalInUseException(journal, holderOf(lockFile));
            }
            byte[] pid = (ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII);
            channel.truncate(0);
            channel.write(ByteBuffer.wrap(pid), 0);
            return new JournalLock(lockFile, channel);
        } catch (IOException | RuntimeException | Error e) {
            if (channel != null) {
                try {
                    channel.close();
                } catch (IOException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            HELD.remove(lockFile);
            throw e;
        }
    }

    /** The process id the holder wrote, if it can be read (it may be writing it right now). */
    private static OptionalLong holderOf(Path lockFile) {
        try {
            String text = Files.readString(lockFile, StandardCharsets.US_ASCII).trim();
            return text.isEmpty() ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(text));
        } catch (IOException | NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    /** Gives the claim up (closing the lock file releases the lock); idempotent. */
    synchronized void release() throws IOException {
        if (released) {
            return;
        }
        released = true;
        try {
            channel.close();
        } finally {
            HELD.remove(lockFile);
        }
    }

    @Override
    public String toString() {
        return "JournalLock[" + lockFile + (released ? ", released" : "") + "]";
    }
}
