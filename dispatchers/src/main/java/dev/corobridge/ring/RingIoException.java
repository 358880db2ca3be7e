package dev.corobridge.ring;

import java.io.IOException;

/**
 * A ring operation failed: the kernel returned a negative result. Carries the errno, its name,
 * the operation and the path (or fd) it was applied to, so the message reads like
 * {@code "read /data/journal.log: EBADF (errno 9)"}.
 */
public class RingIoException extends IOException {

    private static final long serialVersionUID = 1L;

    private final int errno;
    private final String operation;
    private final String target;

    public RingIoException(String operation, String target, int errno) {
        super(operation + " " + target + ": " + Errno.name(errno) + " (errno " + errno + ")");
        this.errno = errno;
        this.operation = operation;
        this.target = target;
    }

    /** The positive errno, e.g. 2 for ENOENT. */
    public int errno() {
        return errno;
    }

    /** The errno's symbolic name, e.g. {@code ENOENT}. */
    public String errnoName() {
        return Errno.name(errno);
    }

    /** The operation, e.g. {@code open}, {@code read}, {@code fdatasync}. */
    public String operation() {
        return operation;
    }

    /** The path, or {@code fd N} when there is none. */
    public String target() {
        return target;
    }
}
