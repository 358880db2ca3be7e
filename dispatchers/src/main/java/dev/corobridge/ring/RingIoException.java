package dev.corobridge.ring;

import java.io.IOException;

/**
 * A ring operation failed: the kernel returned a negative result (or the ring refused the operation
 * for the reason that errno names, e.g. {@code EBADF} for a closed file). Carries the errno, its name,
 * the operation and the path (or fd) it was applied to, so the message reads like
 * {@code "read /data/journal.log: EBADF (errno 9)"}.
 */
public class RingIoException extends IOException {

    private static final long serialVersionUID = 1L;

    private final int errno;
    private final String operation;
    private final String target;

    public RingIoException(String operation, String target, int errno) {
        this(operation, target, errno, null);
    }

    /**
     * With {@code detail} (may be {@code null}) appended to the message, for failures that did not
     * come from the kernel, e.g. {@code "write /data/a.log: EBADF (errno 9): the file is closed"}.
     */
    public RingIoException(String operation, String target, int errno, String detail) {
        super(operation + " " + target + ": " + Errno.name(errno) + " (errno " + errno + ")"
                + (detail == null ? "" : ": " + detail));
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
