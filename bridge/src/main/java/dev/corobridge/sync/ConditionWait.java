package dev.corobridge.sync;

import dev.corobridge.bridge.Outcome;
import dev.corobridge.bridge.internal.OutcomeCell;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CancellationException;

/**
 * One wait on an {@link AsyncCondition}: queued while its caller still held the mutex, woken by
 * one signal, and completed only once the mutex is held again.
 *
 * <p>Its {@code state} moves once, by compare-and-set, from {@code WAITING} to either
 * {@code SIGNALLED} (a signal chose it) or {@code WITHDRAWN} (its cancel won). Exactly one of the two
 * wins, so a signal is never spent on a withdrawn wait — {@link AsyncCondition#signal()} moves on to
 * the next — and a wait that was signalled cannot be withdrawn any more. Either way the mutex is
 * then re-acquired (not cancellably: the caller must hold it again whatever happens) and only then
 * is the outcome published: success when signalled, cancelled when withdrawn.
 *
 * <p>The re-lock is {@link AsyncMutex#relockFor}: it completes only holding the mutex as this wait's
 * owner token, even if another party that shares the token holds the mutex at that moment (it
 * waits behind it), so a {@code finally { unlock(owner); }} after the wait always releases the
 * wait's own hold.
 */
final class ConditionWait extends OutcomeCell<Void> {

    private static final int WAITING = 0;
    private static final int SIGNALLED = 1;
    private static final int WITHDRAWN = 2;
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(ConditionWait.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final AsyncCondition condition;
    private final Object owner;
    @SuppressWarnings("unused")
    private volatile int state;

    ConditionWait(AsyncCondition condition, Object owner) {
        this.condition = condition;
        this.owner = owner;
    }

    /** Wakes this wait if it is still waiting; {@code false} if it was withdrawn (or already woken). */
    boolean trySignal() {
        if (STATE.compareAndSet(this, WAITING, SIGNALLED)) {
            relock(null);
            return true;
        }
        return false;
    }

    /** Withdraws the wait if no signal chose it yet; it completes cancelled once the mutex is held again. */
    @Override
    public boolean cancel() {
        return cancel(new CancellationException("condition wait cancelled"));
    }

    @Override
    public boolean cancel(CancellationException cause) {
        if (STATE.compareAndSet(this, WAITING, WITHDRAWN)) {
            condition.forget(this);
            relock(cause);
            return true;
        }
        return false;
    }

    /** Whether a cancel withdrew this wait (it then ends cancelled once the mutex is held again). */
    boolean isWithdrawn() {
        return state == WITHDRAWN;
    }

    private void relock(CancellationException cancelled) {
        condition.getMutex().relockFor(owner).onComplete(o -> {
            if (o.isSuccess()) {
                decide(cancelled == null ? new Outcome.Success<>(null) : new Outcome.Cancelled<>(cancelled));
            } else {
                decide(o); // cannot happen: relockFor is not cancellable and does not fail; reported rather than lost
            }
        });
    }

    @Override
    public String toString() {
        return "ConditionWait[" + switch (state) {
            case WAITING -> "waiting";
            case SIGNALLED -> "signalled";
            default -> "withdrawn";
        } + (isDone() ? ", " + outcomeOrNull() : "") + "]";
    }
}
