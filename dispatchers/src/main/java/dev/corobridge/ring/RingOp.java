package dev.corobridge.ring;

import dev.corobridge.bridge.AbstractAwaitable;
import dev.corobridge.bridge.Awaitable;
import dev.corobridge.bridge.HopTrace;
import dev.corobridge.bridge.Outcome;
import dev.corobridge.bridge.Promise;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One ring operation in flight: an {@link Awaitable} of its result. It was submitted when it was
 * <i>created</i> (operations depart at call time), so two operations created before either is
 * awaited really overlap.
 *
 * <p><b>Cancellation waits for the kernel.</b> {@link #cancel()} asks the kernel to cancel
 * ({@code IORING_OP_ASYNC_CANCEL}) and returns; the outcome is decided only when the operation's
 * own completion arrives: {@link Outcome.Cancelled} if the kernel stopped it, or its real result if
 * it finished first. Until then the operation keeps its buffers alive, and nobody awaiting it is
 * told that they are free: a buffer is never touched by the kernel after its owner got it back.
 * (The Kotlin suspend functions wait for that completion too, non-cancellably, before rethrowing
 * the cancellation.)
 *
 * <p><b>Thread-safety.</b> Safe from any thread. The outcome is settled on the ring's thread
 * (fallback: on a file worker) and published before any awaiter resumes; awaiters resume on their
 * own dispatcher.
 *
 * @param <T> the result type
 */
public final class RingOp<T> extends AbstractAwaitable<T> {

    private final Promise<T> promise = new Promise<>();
    private final String operation;
    private final String target;
    private final AtomicBoolean cancelRequested = new AtomicBoolean();
    private volatile Runnable kernelCancel;

    RingOp(String operation, String target) {
        this.operation = operation;
        this.target = target;
    }

    /** The operation, e.g. {@code read}. */
    public String operation() {
        return operation;
    }

    /** The path or fd it applies to. */
    public String target() {
        return target;
    }

    /**
     * Requests cancellation. Returns {@code true} if the request was made (the operation was still
     * pending); the outcome follows when the kernel's completion arrives.
     */
    @Override
    public boolean cancel() {
        if (promise.isDone() || !cancelRequested.compareAndSet(false, true)) {
            return false;
        }
        Runnable k = kernelCancel;
        if (k != null) {
            k.run();
        }
        return true;
    }

    /** Whether {@link #cancel()} was called. */
    public boolean isCancelRequested() {
        return cancelRequested.get();
    }

    @Override
    protected Promise<T> promise() {
        return promise;
    }

    @Override
    public HopTrace traceOrNull() {
        return null;
    }

    @Override
    public String toString() {
        return "RingOp[" + operation + " " + target + ", " + (isDone() ? outcomeOrNull() : "in flight") + "]";
    }

    // ------------------------------------------------------------------ engine side

    /** Called once the operation is in the kernel: how to ask the kernel to cancel it. */
    void armCancel(Runnable cancelInKernel) {
        kernelCancel = cancelInKernel;
        if (cancelRequested.get()) {
            cancelInKernel.run(); // cancel() raced with the submission
        }
    }

    void succeed(T value) {
        promise.complete(value);
    }

    void failErrno(int errno) {
        if (errno == Errno.ECANCELED) {
            cancelled();
        } else {
            promise.fail(new RingIoException(operation, target, errno));
        }
    }

    void fail(Throwable error) {
        promise.fail(error);
    }

    void cancelled() {
        promise.cancel(new CancellationException(operation + " " + target + " cancelled"));
    }

    void shutDown(String reason) {
        promise.shutDown(operation + " " + target + ": " + reason);
    }
}
