package dev.corobridge.sync;

import dev.corobridge.bridge.Outcome;
import dev.corobridge.bridge.internal.OutcomeCell;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;

/**
 * {@link AsyncCondition#awaitUntilAsync}: evaluates a predicate holding the mutex and waits for a signal
 * (a {@link ConditionWait}) while it is false, re-evaluating after every wake-up (so spurious or
 * stolen wake-ups are harmless). Every outcome is published holding the mutex again.
 *
 * <p><b>Cancellation never steals a signal.</b> {@code cancel()} records its request once, then
 * tries to withdraw the wait in progress. If that works — no signal chose it — it returns
 * {@code true} and the outcome will be cancelled. If a signal chose it first, it returns
 * {@code false}: the wait goes on with its signal, and once it holds the mutex it evaluates the
 * predicate as always — success if true, the predicate's failure if it throws — and only if it is
 * still false does the recorded request end it, cancelled, there, instead of waiting again (as a
 * Kotlin coroutine cancelled after its signal sees the cancellation at its next wait). So a signal
 * that chose this wait is always used to look at the predicate, never lost on a wait that ignores
 * it.
 *
 * <p>A cancel that reads the previous (signalled) wait while {@link #step()} queues the next one is
 * caught by {@code step}, which reads the request after publishing the new wait in
 * {@code current}; the volatile order makes one of the two see the other. Whichever withdraws it,
 * {@code cancel()} returns {@code true} if the wait it saw was withdrawn.
 */
final class PredicateWait extends OutcomeCell<Void> {

    private static final VarHandle CANCEL_REQUEST;

    static {
        try {
            CANCEL_REQUEST = MethodHandles.lookup().findVarHandle(PredicateWait.class, "cancelRequest", CancellationException.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final AsyncCondition condition;
    private final Object owner;
    private final BooleanSupplier predicate;
    /** The first cancel's cause, set once. */
    @SuppressWarnings("unused")
    private volatile CancellationException cancelRequest;
    /** The wait for a signal in progress (or the last one). */
    private volatile ConditionWait current;

    PredicateWait(AsyncCondition condition, Object owner, BooleanSupplier predicate) {
        this.condition = condition;
        this.owner = owner;
        this.predicate = predicate;
    }

    /** One round; the caller holds the mutex: completes, or releases it and waits for a signal. */
    void step() {
        boolean ok;
        try {
            ok = predicate.getAsBoolean();
        } catch (Throwable e) {
            decide(Outcome.ofError(e));
            return;
        }
        if (ok) {
            decide(new Outcome.Success<>(null));
            return;
        }
        CancellationException request = cancelRequest;
        if (request != null) {
            decide(new Outcome.Cancelled<>(request)); // still holding the mutex: do not wait again
            return;
        }
        ConditionWait w = condition.enqueueAndUnlock(owner);
        current = w;
        request = cancelRequest;
        if (request != null) {
            w.cancel(request); // a cancel that read the previous wait
        }
        w.onComplete(o -> {
            if (o.isSuccess()) {
                step(); // signalled, and holding the mutex again
            } else {
                decide(o); // withdrawn (cancelled with the request), holding the mutex again
            }
        });
    }

    @Override
    public boolean cancel() {
        return cancel(new CancellationException("condition wait cancelled"));
    }

    @Override
    public boolean cancel(CancellationException cause) {
        Objects.requireNonNull(cause, "cause");
        if (isDone() || !CANCEL_REQUEST.compareAndSet(this, (CancellationException) null, cause)) {
            return false;
        }
        ConditionWait w = current;
        return w != null && (w.cancel(cause) || w.isWithdrawn());
    }
}
