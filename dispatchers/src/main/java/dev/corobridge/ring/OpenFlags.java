package dev.corobridge.ring;

import java.nio.file.OpenOption;
import java.nio.file.StandardOpenOption;
import java.util.Set;

/** Maps {@link StandardOpenOption}s to Linux {@code open(2)} flags. */
final class OpenFlags {

    static final int O_RDONLY = 0;
    static final int O_WRONLY = 1;
    static final int O_RDWR = 2;
    static final int O_CREAT = 0100;
    static final int O_EXCL = 0200;
    static final int O_TRUNC = 01000;
    static final int O_APPEND = 02000;
    static final int O_DSYNC = 010000;
    static final int O_SYNC = 04010000;
    static final int O_CLOEXEC = 02000000;

    private OpenFlags() {
    }

    /**
     * The flags for {@code options}; no options means read-only, like {@code FileChannel.open}.
     *
     * @throws UnsupportedOperationException for options a ring cannot honour
     * @throws IllegalArgumentException      for contradictory ones
     */
    static int of(Set<? extends OpenOption> options) {
        boolean read = options.contains(StandardOpenOption.READ);
        boolean write = options.contains(StandardOpenOption.WRITE);
        boolean append = options.contains(StandardOpenOption.APPEND);
        if (append) {
            write = true;
            if (options.contains(StandardOpenOption.TRUNCATE_EXISTING)) {
                throw new IllegalArgumentException("APPEND and TRUNCATE_EXISTING together are not allowed");
            }
            if (read) {
                throw new IllegalArgumentException("APPEND and READ together are not allowed");
            }
        }
        int flags = O_CLOEXEC | (write ? (read ? O_RDWR : O_WRONLY) : O_RDONLY);
        for (OpenOption o : options) {
            if (!(o instanceof StandardOpenOption so)) {
                throw new UnsupportedOperationException("open option not supported by the ring pool: " + o);
            }
            switch (so) {
                case READ, WRITE -> { }
                case APPEND -> flags |= O_APPEND;
                case CREATE -> flags |= write ? O_CREAT : 0;
                case CREATE_NEW -> flags |= write ? (O_CREAT | O_EXCL) : 0;
                case TRUNCATE_EXISTING -> flags |= write ? O_TRUNC : 0;
                case DSYNC -> flags |= O_DSYNC;
                case SYNC -> flags |= O_SYNC;
                case DELETE_ON_CLOSE, SPARSE -> throw new UnsupportedOperationException(
                        "open option not supported by the ring pool: " + so);
            }
        }
        return flags;
    }

    static boolean isAppend(int flags) {
        return (flags & O_APPEND) != 0;
    }
}
