package dev.corobridge.sync;

import dev.corobridge.bridge.Awaitable;
import dev.corobridge.bridge.Outcome;
import dev.corobridge.bridge.Promise;
import dev.corobridge.bridge.internal.OutcomeCell;
import dev.corobridge.bridge.Registration;
import java.util.function.Consumer;

/**
 * One waiter on a shared {@link Promise} (an event, a latch, a wait group's round): its own
 * awaitable, so that cancelling it withdraws this waiter only and leaves the shared promise and
 * the other waiters alone. Cancellation decides at once and withdraws the callback from the
 * shared promise (which prunes withdrawn callbacks, so waiters that give up do not pile up).
 */
final class Waiter<T> extends OutcomeCell<T> implements Consumer<Outcome<T>> {

    private volatile Registration registration = Registration.NONE;

    private Waiter() {
    }

    /** A new waiter of {@code shared}, or an already completed awaitable if it is decided. */
    static <T> Awaitable<T> of(Promise<T> shared) {
        Outcome<T> o = shared.outcomeOrNull();
        if (o != null) {
            Promise<T> done = new Promise<>();
            done.settle(o);
            return done;
        }
        Waiter<T> w = new Waiter<>();
        w.registration = shared.onComplete(w);
        return w;
    }

    @Override
    public void accept(Outcome<T> outcome) {
        decide(outcome);
    }

    @Override
    protected void onDecided(Outcome<T> outcome) {
        if (outcome instanceof Outcome.Cancelled) {
            registration.dispose();
        }
    }
}
