package dev.corobridge.ring;

/** Which machinery a {@link RingPool} runs on. */
public enum Transport {
    /** Netty io_uring event loops: one ring, one thread, one eventfd per ring. */
    IO_URING,
    /**
     * io_uring is unavailable (old kernel, container seccomp) or was turned off: NIO event loops
     * for the contexts and a bounded blocking executor for file operations. Same API.
     */
    FALLBACK
}
