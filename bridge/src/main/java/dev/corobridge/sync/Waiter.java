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
 * shared promise, whenever it happens: a cancellation that decides before the registration is
 * stored is caught by the check after storing it (one of the two always sees the other, and
 * withdrawing twice is harmless). The shared promise prunes withdrawn callbacks (see
 * {@link OutcomeCell}), so waiters that give up do not pile up on it, in whatever order they
 * register and give up: it keeps at most twice its live waiters and a few more.
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
        Registration r = shared.onComplete(w);
        w.registration = r;
        if (w.outcomeOrNull() instanceof Outcome.Cancelled) {
            r.dispose(); // cancelled before the registration was stored: onDecided found nothing to withdraw
        }
        return w;
    }

    @Override
    public void accept(Outcome<T> outcome) {
        decide(outcome);
    }

    /** A cancelled waiter withdraws its callback (the registration, or the check in {@link #of}). */
    @Override
    protected void onDecided(Outcome<T> outcome) {
        if (outcome instanceof Outcome.Cancelled) {
            registration.dispose();
        }
    }
}
