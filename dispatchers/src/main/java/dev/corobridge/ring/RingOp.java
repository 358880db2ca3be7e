package dev.corobridge.ring;

import dev.corobridge.bridge.Awaitable;
import dev.corobridge.bridge.ContextShutdownException;
import dev.corobridge.bridge.HopTrace;
import dev.corobridge.bridge.Outcome;
import dev.corobridge.bridge.Promise;
import dev.corobridge.bridge.Registration;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * One ring operation in flight: an {@link Awaitable} of its result. It was submitted when it was
 * <i>created</i> (operations depart at call time), so two operations created before either is
 * awaited really overlap.
 *
 * <h2>Cancellation</h2>
 * {@link #cancel()} keeps {@link Awaitable#cancel()}'s promise: it returns {@code true} if and only
 * if this call decided the outcome — the operation is then {@link Outcome.Cancelled}, and nothing
 * it was given is still in anyone's hands. Whether a call can decide depends on where the
 * operation is:
 * <ul>
 *   <li><b>Not started yet</b> (on its way to the ring, waiting for a free slot, queued for a
 *       fallback file thread, a socket write not yet handed to the transport): cancelled at once,
 *       {@code true}; it never starts.</li>
 *   <li><b>Started, but undoable</b> — an open, a connect, a bind, a socket read still waiting for
 *       data: cancelled at once, {@code true}. The work is stopped (the kernel's open or connect is
 *       cancelled, the socket closed), and what completes anyway is undone: a file opened, a
 *       connection made or a server bound after all is closed, never handed out; bytes that arrive
 *       stay in the connection for the next read.</li>
 *   <li><b>In the kernel's hands</b> — a file read or write using your buffer, an fsync, a socket
 *       write the transport is sending: cancel() asks the kernel to stop it
 *       ({@code IORING_OP_ASYNC_CANCEL}; for a socket write, the connection is aborted, since its
 *       stream is cut mid-write) and returns {@code false}: the kernel decides. The outcome follows
 *       with the operation's completion: {@link Outcome.Cancelled} if the kernel stopped it, or its
 *       real result if it finished first (so a file write reported cancelled did not happen, and a
 *       read's bytes are not lost; a socket write cut mid-way, or a readFully/writeFully, may have
 *       moved part of its bytes). Until then the operation keeps its buffers, and nobody awaiting it is
 *       told that they are free: a buffer is never touched by the kernel after its owner got it
 *       back. (The Kotlin suspend functions wait for that completion too, non-cancellably, before
 *       rethrowing the cancellation.) The fallback cannot stop a blocking call already running: it
 *       ends with its real result when the call returns.</li>
 *   <li><b>A close</b> cannot be cancelled (that would leak the fd): {@code false}, nothing changes.</li>
 *   <li><b>Already decided</b>: {@code false}; nothing changes.</li>
 * </ul>
 * {@link #isCancelRequested()} tells whether cancel() was called at all.
 *
 * <p><b>Thread-safety.</b> Safe from any thread. The outcome is settled on the ring's thread
 * (fallback: on a file worker), or by {@link #cancel()} on the caller's thread, and published before
 * any awaiter resumes; awaiters resume on their own dispatcher.
 *
 * <h2>Implementation overview</h2>
 * A {@code phase} decides who may settle the operation: {@code PENDING} (not started) and
 * {@code WITHDRAWABLE} (started, undoable) let {@link #cancel()} move it to {@code WITHDRAWN} and
 * cancel the promise; {@code COMMITTED} leaves the decision to the kernel. The engine moves it out of
 * {@code PENDING} with one compare-and-set before it starts the work ({@link #start()},
 * {@link #startWithdrawable()}) and, for undoable work, again before it hands over a result
 * ({@link #commit()}); whoever loses that race knows it: cancel() that it must only ask, the engine
 * that it must not start, or must undo. Every engine-side settle — a value, a failure, a shutdown, a
 * cancellation the kernel reported — passes the same gate: it moves a phase still open to
 * {@code COMMITTED} first, and settles nothing once cancel() has withdrawn the operation. So the
 * phase alone decides who settles: a withdrawn operation is settled by the cancel() that withdrew it,
 * which therefore returns {@code true}, and the engine only cleans up (it closes what was opened or
 * connected; buffers stay pinned until the kernel's completion, as always); a value refused so is
 * closed by the operation's releaser, if it has one. The canceller armed by the engine
 * ({@link #armCancel}) runs only after cancel() has withdrawn the operation (or found it committed):
 * run earlier, the work it stops could fail, and that failure decide the operation, while cancel()
 * is still on its way to withdraw it.
 *
 * @param <T> the result type
 */
public final class RingOp<T> implements Awaitable<T> {

    private static final int PENDING = 0;
    private static final int WITHDRAWABLE = 1;
    private static final int COMMITTED = 2;
    private static final int WITHDRAWN = 3;
    /**
     * Withdrawn by {@link #cancel()} before the engine started it: the withdrawal counts it out of
     * the in-flight count itself (cancel(), or {@link #countIn} if it came first), and the engine's
     * own {@link #countOut()} then leaves the count alone. Had the engine's count-out claimed the
     * counter first, cancel() could return {@code true} while the count was still about to go down.
     */
    private static final int WITHDRAWN_UNSTARTED = 4;

    private static final VarHandle IN_FLIGHT;

    static {
        try {
            IN_FLIGHT = MethodHandles.lookup().findVarHandle(RingOp.class, "inFlight", AtomicInteger.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * Engine side: asks whoever holds the operation (the kernel, the transport, the ring's record)
     * to stop it. Called at most a few times, from any thread: must be idempotent and must not block.
     */
    @FunctionalInterface
    interface Canceller {
        /** {@code true} if this decided the operation's outcome at once (as cancelled). */
        boolean cancel();
    }

    private final Promise<T> promise = new Promise<>();
    private final String operation;
    private final String target;
    private final AtomicInteger phase;
    private final AtomicBoolean cancelRequested = new AtomicBoolean();
    private volatile Canceller canceller;
    /** What closes the value if its awaiter left (a file, a connection, a server); may be null. */
    private volatile java.util.function.Consumer<? super T> releaser;
    private final AtomicBoolean released = new AtomicBoolean();
    /**
     * The engine's count of operations in flight while this one is counted in it: set by
     * {@link #countIn}, taken back (null) by the one {@link #countOut()} that counts it out.
     */
    private volatile AtomicInteger inFlight;

    RingOp(String operation, String target) {
        this(operation, target, PENDING);
    }

    private RingOp(String operation, String target, int phase) {
        this.operation = operation;
        this.target = target;
        this.phase = new AtomicInteger(phase);
    }

    /** An operation that {@link #cancel()} can never stop (a close: undoing it would leak the fd). */
    static <T> RingOp<T> uncancellable(String operation, String target) {
        return new RingOp<>(operation, target, COMMITTED);
    }

    /** The operation, e.g. {@code read}. */
    public String getOperation() {
        return operation;
    }

    /** The path or fd it applies to. */
    public String getTarget() {
        return target;
    }

    /**
     * Cancels the operation if that can still be decided here, else asks the kernel to stop it (see
     * the class comment). Returns {@code true} if and only if this call decided the outcome, which
     * is then {@link Outcome.Cancelled}; {@code false} if the outcome was decided already or is now
     * the kernel's to decide. A second call changes nothing and returns {@code false}.
     */
    @Override
    public boolean cancel() {
        if (promise.isDone() || !cancelRequested.compareAndSet(false, true)) {
            return false;
        }
        int p;
        while ((p = phase.get()) == PENDING || p == WITHDRAWABLE) {
            if (phase.compareAndSet(p, p == PENDING ? WITHDRAWN_UNSTARTED : WITHDRAWN)) {
                if (p == PENDING) {
                    countOutNow(); // it will never run: out of the in-flight count before anyone sees it decided
                }
                boolean decided = promise.cancel(cancellation());
                if (p == WITHDRAWABLE) {
                    runCanceller(); // stop the work; the engine undoes whatever completes anyway
                }
                return decided;
            }
        }
        return runCanceller(); // in the kernel's hands: ask, the completion decides
    }

    /** Whether {@link #cancel()} was called. */
    public boolean isCancelRequested() {
        return cancelRequested.get();
    }

    /** Whether the engine has started (or settled) the work, i.e. it is no longer waiting to (for tests). */
    boolean started() {
        int p = phase.get();
        return p == WITHDRAWABLE || p == COMMITTED;
    }

    /** Whether {@link #cancel()} withdrew the operation (for tests). */
    boolean withdrawn() {
        int p = phase.get();
        return p == WITHDRAWN || p == WITHDRAWN_UNSTARTED;
    }

    @Override
    public boolean isDone() {
        return promise.isDone();
    }

    @Override
    public Outcome<T> outcomeOrNull() {
        return promise.outcomeOrNull();
    }

    @Override
    public Registration onComplete(Consumer<? super Outcome<T>> callback) {
        return promise.onComplete(callback);
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

    /**
     * The engine took the operation: counts it in {@code counter} until {@link #countOut()}. The
     * count goes down exactly once, by whichever comes first: the engine settling the operation, or
     * {@link #cancel()} withdrawing it before it started, which decides it at once — then it is
     * not in flight any more, although the engine only finds that out when it gets to it.
     */
    void countIn(AtomicInteger counter) {
        counter.incrementAndGet();
        inFlight = counter;
        if (withdrawn()) {
            countOutNow(); // withdrawn before it was counted in: cancel() found no counter to count out of
        }
    }

    /**
     * Counts the operation out of its engine's in-flight count; only the first call does anything.
     * Nothing for an operation withdrawn before it started, which its withdrawal counts out.
     */
    void countOut() {
        if (phase.get() != WITHDRAWN_UNSTARTED) {
            countOutNow();
        }
    }

    private void countOutNow() {
        AtomicInteger c = (AtomicInteger) IN_FLIGHT.getAndSet(this, (AtomicInteger) null);
        if (c != null) {
            c.decrementAndGet();
        }
    }

    /**
     * The engine is about to hand the operation to the kernel, for good: {@code false} if
     * {@link #cancel()} withdrew it first (it is cancelled then: do not start it, release what it
     * pinned). {@code true} also for an operation already committed.
     */
    boolean start() {
        int p;
        while ((p = phase.get()) == PENDING) {
            if (phase.compareAndSet(PENDING, COMMITTED)) {
                return true;
            }
        }
        return p == COMMITTED;
    }

    /**
     * The engine starts work whose result it can undo: {@code false} if {@link #cancel()} withdrew
     * the operation first. Until {@link #commit()}, cancel() still decides at once.
     */
    boolean startWithdrawable() {
        return phase.compareAndSet(PENDING, WITHDRAWABLE);
    }

    /**
     * The result of withdrawable work is in: {@code true} if the engine may now settle the operation
     * with it; {@code false} if {@link #cancel()} withdrew it (undo the result: close what was opened,
     * keep what was received).
     */
    boolean commit() {
        return phase.compareAndSet(WITHDRAWABLE, COMMITTED) || phase.get() == COMMITTED;
    }

    /**
     * Called once the work is under way: how to stop it. Runs it at once if cancel() came first and
     * has withdrawn the operation, or found it committed (it may have looked for the canceller before
     * this set it). While the operation is still withdrawable, a cancel() under way has yet to
     * withdraw it, and runs the canceller itself right after: running it here first could make the
     * work fail (a connect whose channel it closed) and that failure settle the operation before
     * cancel() withdraws it — cancel() would return {@code false} for a failure it caused.
     */
    void armCancel(Canceller c) {
        canceller = c;
        if (cancelRequested.get() && phase.get() != WITHDRAWABLE) {
            c.cancel(); // cancel() raced with the start; stopping twice is harmless (idempotent)
        }
    }

    /** For operations that produce something to close: how to close it if its awaiter leaves. */
    RingOp<T> releasingWith(java.util.function.Consumer<? super T> r) {
        releaser = r;
        return this;
    }

    /**
     * The awaiter has left (its coroutine was cancelled) after the operation succeeded anyway — its
     * value arrived in the same instant: closes that value, once, so it does not stay open unowned.
     */
    void releaseIfAbandoned() {
        java.util.function.Consumer<? super T> r = releaser;
        if (r != null && promise.outcomeOrNull() instanceof Outcome.Success<T> s && released.compareAndSet(false, true)) {
            r.accept(s.value());
        }
    }

    private boolean runCanceller() {
        Canceller c = canceller;
        return c != null && c.cancel();
    }

    private CancellationException cancellation() {
        return new CancellationException(operation + " " + target + " cancelled");
    }

    /**
     * The engine is about to settle the operation: {@code true} if it may (the phase is committed
     * now, so a later cancel() only asks, and finds it decided); {@code false} if {@link #cancel()}
     * withdrew it — that call settles it, and the engine must only clean up.
     */
    private boolean engineMaySettle() {
        int p;
        while ((p = phase.get()) == PENDING || p == WITHDRAWABLE) {
            if (phase.compareAndSet(p, COMMITTED)) {
                return true;
            }
        }
        return p == COMMITTED;
    }

    /**
     * Settles with {@code value}; {@code true} if this decided it. A value that arrives after
     * {@link #cancel()} withdrew the operation is not handed out: the releaser (if any) closes it.
     */
    boolean succeed(T value) {
        if (!engineMaySettle()) {
            java.util.function.Consumer<? super T> r = releaser;
            if (r != null && value != null) {
                r.accept(value);
            }
            return false;
        }
        return promise.complete(value);
    }

    /** Settles with the errno ({@code ECANCELED}: cancelled); nothing if cancel() withdrew the operation. */
    void failErrno(int errno) {
        if (errno == Errno.ECANCELED) {
            cancelled();
        } else if (engineMaySettle()) {
            promise.fail(new RingIoException(operation, target, errno));
        }
    }

    /** Settles with {@code error}; nothing if cancel() withdrew the operation (it decided first). */
    void fail(Throwable error) {
        if (engineMaySettle()) {
            promise.fail(error);
        }
    }

    /**
     * Settles as cancelled (the kernel said ECANCELED, or the work was stopped); {@code true} if this
     * decided it. An operation that {@link #cancel()} withdrew is left to that call, which settles it
     * right after withdrawing: settling it here first would make that cancel() return {@code false}
     * for a cancellation it decided.
     */
    boolean cancelled() {
        if (!engineMaySettle()) {
            return false;
        }
        return promise.cancel(cancellation());
    }

    /** Settles as shut down; nothing if cancel() withdrew the operation (it decided first). */
    void shutDown(String reason) {
        if (engineMaySettle()) {
            promise.cancel(new ContextShutdownException(operation + " " + target + ": " + reason));
        }
    }
}
