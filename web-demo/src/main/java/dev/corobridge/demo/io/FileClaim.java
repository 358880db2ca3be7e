package dev.corobridge.demo.io;

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
 * A service's claim on a file of its data directory, held while it uses the file: an exclusive lock
 * on {@code <file>.lock} beside it. The journal claims {@code journal.log} from its open until it
 * is closed, so that no second journal, in another process or in this one, appends over changes the
 * first one acknowledged; a cluster-mode replica claims its {@code boards.snapshot}, so that no
 * second replica on the same directory replaces the snapshot under it.
 *
 * <p>The lock is the kernel's ({@code fcntl} through {@link FileChannel#tryLock()}): it ends with
 * the process however the process ends, so a crash or a {@code kill -9} leaves no stale claim to
 * clear by hand. The holder writes its process id into the file, for the refusal's message (when
 * the disk takes it: the claim does not depend on it); the
 * file itself stays (removing it would race with the next opener). It is a separate file because
 * such a lock belongs to the process and the file, and closing any descriptor of the journal in this
 * process (the start-up's rewrites do) would drop a lock held on the journal itself. For the same
 * reason a second claim from this process is refused from a set of held paths before any
 * descriptor of the lock file is opened (closing that descriptor would drop the first claim).
 *
 * <p>Thread-safety: {@link #acquire} and {@link #release} may be called from any thread;
 * {@code release} is idempotent.
 */
public final class FileClaim {

    /** The lock files this process holds (real paths). */
    private static final Set<Path> HELD = ConcurrentHashMap.newKeySet();

    private final Path lockFile;
    private final FileChannel channel;
    /** The lock file this claim locked. */
    private final FileIdentity lockFileIdentity;
    private boolean released;

    private FileClaim(Path lockFile, FileChannel channel, FileIdentity lockFileIdentity) {
        this.lockFile = lockFile;
        this.channel = channel;
        this.lockFileIdentity = lockFileIdentity;
    }

    /** How a claim already held is refused: the file, and the holder's process id if it could be read. */
    @FunctionalInterface
    public interface InUse {
        IOException refusal(Path file, OptionalLong holderPid);
    }

    /** The lock file of {@code file}: {@code <file>.lock} in the same directory. */
    public static Path lockFileOf(Path file) {
        return file.resolveSibling(file.getFileName() + ".lock");
    }

    /**
     * Claims {@code file} (its directory must exist; the file need not).
     *
     * @throws IOException {@code inUse}'s refusal if another claim holds it, in this process or
     *                     another; or if the lock file cannot be created, opened or locked
     */
    public static FileClaim acquire(Path file, InUse inUse) throws IOException {
        Path dir = file.toAbsolutePath().getParent().toRealPath();
        Path lockFile = lockFileOf(dir.resolve(file.getFileName()));
        if (!HELD.add(lockFile)) {
            throw inUse.refusal(file, OptionalLong.of(ProcessHandle.current().pid()));
        }
        FileChannel channel = null;
        try {
            channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
            FileLock lock = channel.tryLock();
            if (lock == null) {
                throw inUse.refusal(file, holderOf(lockFile));
            }
            writeHolder(channel);
            return new FileClaim(lockFile, channel, FileIdentity.of(lockFile));
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

    /**
     * Writes this process's id into the held lock file, for a refusal's message. Best effort: the
     * lock is the claim, and on a full disk the write fails (ENOSPC), which must not end a start
     * whose own step would report the disk (a refusal then names no holder).
     */
    private static void writeHolder(FileChannel channel) {
        byte[] pid = (ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII);
        try {
            channel.truncate(0);
            channel.write(ByteBuffer.wrap(pid), 0);
        } catch (IOException e) {
            try {
                channel.truncate(0); // no partial id
            } catch (IOException ignored) {
                // an empty or partial id reads as no holder's id
            }
        }
    }

    /**
     * Whether the lock file at the claimed path is no longer the one this claim locked (removed or
     * replaced): it then protects nothing, as a second claimer creates and locks a new one.
     */
    public boolean isLockFileReplaced() {
        return lockFileIdentity.isReplaced();
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
    public synchronized void release() throws IOException {
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
        return "FileClaim[" + lockFile + (released ? ", released" : "") + "]";
    }
}
