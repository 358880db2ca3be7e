package dev.corobridge.demo.io;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * Which file a path named when this was taken (its device and inode, following links), to tell
 * later whether the path still names it: a file removed, moved away or replaced by another is no
 * longer the one a service holds open. Where the file system gives files no identity, or it cannot
 * be read, nothing is ever reported replaced.
 *
 * <p>Immutable; thread-safe. {@link #isReplaced} costs one {@code stat}.
 */
public final class FileIdentity {

    private final Path path;
    /** The file's identity when taken; null where it has none. */
    private final Object key;

    private FileIdentity(Path path, Object key) {
        this.path = path;
        this.key = key;
    }

    /** The identity of the file {@code path} names now. */
    public static FileIdentity of(Path path) {
        try {
            return new FileIdentity(path, Files.readAttributes(path, BasicFileAttributes.class).fileKey());
        } catch (IOException e) {
            return new FileIdentity(path, null);
        }
    }

    /** Whether the path no longer names that file: none is there, or another one is. */
    public boolean isReplaced() {
        if (key == null) {
            return false;
        }
        try {
            return !key.equals(Files.readAttributes(path, BasicFileAttributes.class).fileKey());
        } catch (NoSuchFileException e) {
            return true;
        } catch (IOException e) {
            return false; // cannot be told (an unreadable directory): not reported
        }
    }
}
