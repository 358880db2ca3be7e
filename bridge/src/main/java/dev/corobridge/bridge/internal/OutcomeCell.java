package dev.corobridge.bridge.internal;

import dev.corobridge.bridge.Awaitable;
import dev.corobridge.bridge.Outcome;
import dev.corobridge.bridge.Registration;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.function.Consumer;

/**
 * Internal API: not for use outside corobridge; may change without notice.
 *
 * <p>A settle-once {@link Awaitable} to extend: the base of the waits of the sync primitives, which
 * are not API. It is the {@link OutcomeFields} algorithm on two fields of its own; what a subclass
 * adds is what {@link #cancel(CancellationException)} means for it (a channel receive that already
 * took an element refuses) and what happens the moment the outcome is decided ({@link #onDecided}:
 * a permit wait withdraws from kotlinx). Deciding ({@link #decide}) is the subclass's own business.
 * The public awaitables ({@link dev.corobridge.bridge.Task}, {@link dev.corobridge.bridge.Promise})
 * do not extend it: they hold the same two fields themselves, so no internal type is in their
 * signatures. A thread blocked in {@link #join()} is kept in a third field and unparked directly
 * when the outcome is decided ({@link JoinerSlot}): a lock wait that parks costs no callback.
 *
 * <p><b>Thread-safety.</b> All methods are safe from any thread and lock-free (see {@link OutcomeFields}).
 *
 * @param <T> the value type
 */
public class OutcomeCell<T> implements Awaitable<T>, CauseCancellable {

    /** The fewest withdrawn callbacks worth a pruned copy of the stack ({@link OutcomeFields}). */
    static final int PRUNE_AT = OutcomeFields.PRUNE_AT;

    private static final OutcomeFields OUTCOME = OutcomeFields.in(MethodHandles.lookup());
    private static final VarHandle JOINER;

    static {
        try {
            JOINER = MethodHandles.lookup().findVarHandle(OutcomeCell.class, "joiner", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** {@link OutcomeFields}' state word: null or a stack of callbacks (pending), or the {@link Outcome}. */
    @SuppressWarnings("unused")
    private volatile Object state;

    /** {@link OutcomeFields}' count of withdrawn callbacks in the pending stack. */
    @SuppressWarnings("unused")
    private volatile int withdrawn;

    /** The thread parked in {@link #join()}, unparked by {@link #decide} ({@link JoinerSlot}). */
    @SuppressWarnings("unused")
    private volatile Thread joiner;

    /** A pending cell. */
    public OutcomeCell() {
    }

    /**
     * Cancels, if still pending, with a plain {@link CancellationException}; {@code true} if this
     * call decided the outcome.
     */
    @Override
    public boolean cancel() {
        return cancel(new CancellationException("cancelled"));
    }

    /**
     * Cancels with {@code cause}; {@code true} if this call decided the outcome. A subclass whose
     * operation may refuse (it already matched) overrides this and returns {@code false} then.
     */
    @Override
    public boolean cancel(CancellationException cause) {
        return decide(new Outcome.Cancelled<>(Objects.requireNonNull(cause, "cause")));
    }

    /**
     * Decides the outcome if it is still pending: runs {@link #onDecided}, then every callback.
     * Returns {@code true} if this call decided it.
     */
    protected final boolean decide(Outcome<T> outcome) {
        Object callbacks = OUTCOME.decide(this, outcome);
        if (callbacks == OutcomeFields.LOST) {
            return false;
        }
        JoinerSlot.wake(this, JOINER);
        onDecided(outcome);
        OUTCOME.runCallbacks(callbacks, outcome);
        return true;
    }

    /**
     * Runs once, on the deciding thread, after the outcome is published and before the callbacks:
     * what the subclass must do at that moment. Must not throw.
     */
    protected void onDecided(Outcome<T> outcome) {
    }

    /**
     * Blocks until the outcome is decided, as every {@code join()} does, without a callback: the
     * first joining thread is kept in a field and unparked by {@link #decide} ({@link JoinerSlot}).
     */
    @Override
    public final T join() throws InterruptedException {
        if (!isDone()) {
            BlockingGuard.checkMayBlock("join()");
            JoinerSlot.park(this, JOINER); // false: a second joiner, which waits through a callback below
        }
        return Awaitable.super.join(); // done (or a second joiner): the outcome, rethrown as every join rethrows it
    }

    @Override
    public final boolean isDone() {
        return OUTCOME.isDone(this);
    }

    @Override
    public final Outcome<T> outcomeOrNull() {
        return OUTCOME.outcomeOrNull(this);
    }

    @Override
    public final Registration onComplete(Consumer<? super Outcome<T>> callback) {
        return OUTCOME.onComplete(this, callback);
    }

    /**
     * Cancels {@code awaitable} with {@code cause} where it takes one (corobridge's own: a task, a
     * promise, a wait of the sync primitives), else plainly; {@code true} if this call decided it.
     */
    public static boolean cancel(Awaitable<?> awaitable, CancellationException cause) {
        return switch (awaitable) {
            case dev.corobridge.bridge.Task<?> t -> t.cancel(cause);
            case dev.corobridge.bridge.Promise<?> p -> p.cancel(cause);
            case CauseCancellable c -> c.cancel(cause);
            default -> awaitable.cancel();
        };
    }

    /** The nodes of the pending stack, withdrawn ones included (0 once decided): for tests. */
    final int retainedCallbacks() {
        return OUTCOME.retainedCallbacks(this);
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "@" + Integer.toHexString(System.identityHashCode(this))
                + OUTCOME.describe(this);
    }
}
