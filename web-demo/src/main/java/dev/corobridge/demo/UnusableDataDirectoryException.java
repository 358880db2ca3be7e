package dev.corobridge.demo;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;

import dev.corobridge.ring.RingIoException;

/**
 * {@code demo.data-dir} cannot hold the service's files: it is not a directory, cannot be created,
 * or cannot be written, or a file the service keeps there is not a regular file or may not be opened for
 * writing. Thrown at start, before anything is read or written there;
 * {@link UnusableDataDirectoryFailureAnalyzer} turns it into the start's failure report.
 */
public final class UnusableDataDirectoryException extends IOException {

    private final transient Path directory;

    UnusableDataDirectoryException(Path directory, String problem, Throwable cause) {
        super("demo.data-dir " + directory + " " + problem, cause);
        this.directory = directory;
    }

    /** The data directory as configured. */
    public Path directory() {
        return directory;
    }

    /**
     * Creates {@code dir} (and its parents) if it is missing and checks that it is a directory this
     * process can write, by creating a file in it (named {@value #WRITE_PROBE}…, deleted at once); returns it.
     *
     * @throws UnusableDataDirectoryException if it is not, saying why
     */
    static Path prepare(Path dir) throws UnusableDataDirectoryException {
        if (Files.exists(dir) && !Files.isDirectory(dir)) {
            throw new UnusableDataDirectoryException(dir, "is not a directory (a file is in its place)", null);
        }
        try {
            Files.createDirectories(dir);
        } catch (FileAlreadyExistsException e) {
            throw new UnusableDataDirectoryException(dir, "cannot be created: " + e.getFile() + " is not a directory", e);
        } catch (AccessDeniedException e) {
            throw new UnusableDataDirectoryException(dir, "cannot be created: permission denied on " + e.getFile(), e);
        } catch (IOException e) {
            throw new UnusableDataDirectoryException(dir, "cannot be created: " + why(e), e);
        }
        if (!Files.isWritable(dir)) {
            throw new UnusableDataDirectoryException(dir, "is not writable by this process", null);
        }
        // The access check trusts permission bits, which root passes everywhere: a directory of a
        // read-only or virtual file system (procfs, sysfs) passes it and still takes no file.
        try {
            Files.delete(Files.createTempFile(dir, WRITE_PROBE, null)); // a name of its own: two starts may probe at once
        } catch (IOException e) {
            throw new UnusableDataDirectoryException(dir, "cannot be written: creating a file in it failed: " + why(e), e);
        }
        return dir;
    }

    /**
     * {@code failure}, a failed open of a file the service keeps in {@code dir} (the journal, its
     * lock file), as this exception when the kernel refused the access (EACCES, EPERM, EROFS: a file
     * read-only for this user, an immutable file, a read-only mount), so that the start's report
     * names the file and the reason instead of ending in a stack trace; any other failure as it is.
     * The access check of {@link #prepare} cannot see these: it asks about the directory, and root
     * passes permission bits.
     */
    static IOException explainRefusedOpen(Path dir, IOException failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof AccessDeniedException a && a.getFile() != null) { // the JDK's EACCES, often without a reason
                return refusedOpen(dir, Path.of(a.getFile()), "Permission denied", failure);
            }
            if (t instanceof FileSystemException f && f.getFile() != null && REFUSED_REASONS.contains(f.getReason())) {
                return refusedOpen(dir, Path.of(f.getFile()), f.getReason(), failure);
            }
            if (t instanceof RingIoException r && "open".equals(r.operation()) && REFUSED_ERRNOS.contains(r.errno())) {
                return refusedOpen(dir, Path.of(r.target()), r.errnoName(), failure);
            }
        }
        return failure;
    }

    private static UnusableDataDirectoryException refusedOpen(Path dir, Path file, String reason, IOException failure) {
        return new UnusableDataDirectoryException(dir, "holds " + file.getFileName() + ", but " + file
                + " cannot be opened for writing: " + reason, failure);
    }

    /** EPERM, EACCES, EROFS. */
    private static final Set<Integer> REFUSED_ERRNOS = Set.of(1, 13, 30);

    /** The JDK's texts of EPERM and EROFS ({@link FileSystemException#getReason()}). */
    private static final Set<String> REFUSED_REASONS = Set.of("Operation not permitted", "Read-only file system");

    /** The kernel's reason and the file, for a file-system failure; else the message. */
    private static String why(IOException e) {
        if (e instanceof FileSystemException f) {
            return (f.getReason() != null ? f.getReason() : f.getClass().getSimpleName()) + " (" + f.getFile() + ")";
        }
        return e.getMessage();
    }

    /** The start of the name of the file that {@link #prepare} creates and deletes again to see that the directory takes files. */
    static final String WRITE_PROBE = ".write-check";

    /**
     * Checks that {@code file} in the data directory {@code dir}, if it exists, is a regular file
     * (the journal, the snapshot): a directory or device in its place cannot be opened as one.
     *
     * @throws UnusableDataDirectoryException if it is not, naming it
     */
    static void checkFile(Path dir, Path file) throws UnusableDataDirectoryException {
        if (Files.exists(file) && !Files.isRegularFile(file)) {
            throw new UnusableDataDirectoryException(dir, "holds " + file.getFileName() + ", but " + file + " is not a regular file", null);
        }
    }

    /**
     * As {@link #checkFile}, and that {@code file} has no other name: a hard link to it from another
     * directory would let a service started there use the same file under a lock of its own (the
     * lock is a file beside it), and the two would overwrite each other's changes.
     *
     * @throws UnusableDataDirectoryException if it is not a regular file or has more than one name
     */
    static void checkOwnFile(Path dir, Path file) throws UnusableDataDirectoryException {
        checkFile(dir, file);
        int names;
        try {
            names = Files.exists(file) ? (Integer) Files.getAttribute(file, "unix:nlink") : 1;
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return; // a file system that counts no links has none to fear
        }
        if (names > 1) {
            throw new UnusableDataDirectoryException(dir, "holds " + file.getFileName() + ", but " + file + " has " + names
                    + " names (hard links): another name may be another service's, which would overwrite this one's "
                    + "changes; give each service a file of its own (a copy, not a link)", null);
        }
    }
}
