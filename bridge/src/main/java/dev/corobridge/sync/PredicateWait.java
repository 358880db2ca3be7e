package dev.corobridge.sync;

import dev.corobridge.bridge.Outcome;
import dev.corobridge.bridge.internal.OutcomeCell;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;

/**
 * {@link AsyncCondition#whenTrue}: evaluates a predicate holding the mutex and waits for a signal
 * while it is false, re-evaluating after every wake-up (so spurious or stolen wake-ups are harmless).
 *
 * <p>Cancellation is a request ({@code RUNNING} to {@code CANCELLING} by compare-and-set): the wait in
 * progress is withdrawn if it can be, and the loop ends cancelled the next time it holds the mutex.
 * The loop itself moves {@code RUNNING} to {@code FINISHING} before it completes with success, so a
 * cancel either wins (and the outcome will be cancelled) or loses (and returns {@code false}).
 * Every outcome is published holding the mutex again.
 */
final class PredicateWait extends OutcomeCell<Void> {

    private static final int RUNNING = 0;
    private static final int CANCELLING = 1;
    private static final int FINISHING = 2;
    private static final VarHandle STATE;
    private static final VarHandle CAUSE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(PredicateWait.class, "state", int.class);
            CAUSE = MethodHandles.lookup().findVarHandle(PredicateWait.class, "cancelCause", CancellationException.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final AsyncCondition condition;
    private final Object owner;
    private final BooleanSupplier predicate;
    @SuppressWarnings("unused")
    private volatile int state;
    private volatile CancellationException cancelCause;
    private volatile ConditionWait current;

    PredicateWait(AsyncCondition condition, Object owner, BooleanSupplier predicate) {
        this.condition = condition;
        this.owner = owner;
        this.predicate = predicate;
    }

    /** One round; the caller holds the mutex. */
    void step() {
        while (true) {
            if (state == CANCELLING) {
                decide(new Outcome.Cancelled<>(cancelCause));
                return;
            }
            boolean ok;
            try {
                ok = predicate.getAsBoolean();
            } catch (Throwable e) {
                if (STATE.compareAndSet(this, RUNNING, FINISHING)) {
                    decide(Outcome.ofError(e));
                    return;
                }
                continue; // cancelled meanwhile: end cancelled
            }
            if (ok) {
                if (STATE.compareAndSet(this, RUNNING, FINISHING)) {
                    decide(new Outcome.Success<>(null));
                    return;
                }
                continue;
            }
            ConditionWait w = condition.enqueueAndUnlock(owner);
            current = w;
            if (state == CANCELLING) {
                w.cancel(cancelCause); // a cancel that came before `current` was visible
            }
            w.onComplete(o -> {
                if (o.isSuccess()) {
                    step();
                } else if (o instanceof Outcome.Cancelled) {
                    decide(new Outcome.Cancelled<>(cancelCause));
                } else {
                    decide(o);
                }
            });
            return;
        }
    }

    @Override
    public boolean cancel() {
        return cancel(new CancellationException("condition wait cancelled"));
    }

    @Override
    public boolean cancel(CancellationException cause) {
        // The cause is published before the state that makes step() read it.
        if (!CAUSE.compareAndSet(this, (CancellationException) null, cause) || !STATE.compareAndSet(this, RUNNING, CANCELLING)) {
            return false;
        }
        ConditionWait w = current;
        if (w != null) {
            w.cancel(cause);
        }
        return true;
    }
}
