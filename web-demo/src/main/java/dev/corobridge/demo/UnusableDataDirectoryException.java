package dev.corobridge.demo;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code demo.data-dir} cannot hold the service's files: it is not a directory, cannot be created,
 * or cannot be written, or a file the service keeps there is not a regular file. Thrown at start, before anything is read or written there;
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
}
