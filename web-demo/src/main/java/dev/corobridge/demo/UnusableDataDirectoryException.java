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
     * process can write; returns it.
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
        } catch (FileSystemException e) {
            throw new UnusableDataDirectoryException(dir, "cannot be created: "
                    + (e.getReason() != null ? e.getReason() : e.getClass().getSimpleName()) + " (" + e.getFile() + ")", e);
        } catch (IOException e) {
            throw new UnusableDataDirectoryException(dir, "cannot be created: " + e.getMessage(), e);
        }
        if (!Files.isWritable(dir)) {
            throw new UnusableDataDirectoryException(dir, "is not writable by this process", null);
        }
        return dir;
    }

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
