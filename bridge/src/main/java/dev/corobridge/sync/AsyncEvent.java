package dev.corobridge.sync;

import dev.corobridge.bridge.Awaitable;
import dev.corobridge.bridge.Outcome;
import dev.corobridge.bridge.Promise;

/**
 * A one-shot event: set once, with an optional value; any number of waiters, before or after.
 * Waiting after it was set returns at once.
 *
 * <pre>{@code
 * AsyncEvent<Config> loaded = new AsyncEvent<>();
 * // Java, on a virtual thread:             // Kotlin:
 * Config c = loaded.awaitAsync().join();        val c = loaded.await()
 * // elsewhere, once:
 * loaded.set(config);
 * }</pre>
 *
 * <ul>
 *   <li><b>Set once.</b> The first {@link #set} wins and returns {@code true}; later ones change
 *       nothing and return {@code false}. {@link #cancel()} instead tells every waiter, present and
 *       future, that the event will never happen ({@link java.util.concurrent.CancellationException}).</li>
 *   <li><b>Cancellation of a waiter.</b> Each {@link #awaitAsync()} is a waiter of its own: cancelling
 *       it (or the Kotlin coroutine in {@code await()}) withdraws that waiter only. Setting the event
 *       is a broadcast, so a cancelled waiter can never take a wake-up from another.</li>
 *   <li><b>Threads.</b> A Java awaitable completes on the thread that called {@code set}; a Kotlin
 *       coroutine resumes on its own dispatcher (a waiter on the pump resumes on the pump).</li>
 * </ul>
 *
 * <h2>Implementation overview</h2>
 * One {@link Promise} holds the state: pending with a lock-free stack of waiter callbacks, or set
 * with its outcome. {@code set} is the promise's single compare-and-set from pending to the value:
 * exactly one setter wins and then runs every callback registered before it; a waiter that
 * registers after it sees the outcome and completes at once (there is no window in between: the
 * registration is a CAS on the same word). Each waiter is a small promise of its own registered as
 * one callback, so withdrawing it is disposing that callback; withdrawn callbacks are pruned from
 * the stack, so waiters that give up do not pile up on an event that is never set.
 *
 * <p><b>Memory effects.</b> Actions before {@code set(v)} happen-before actions after a wait that
 * returns {@code v}.
 *
 * <p><b>Thread-safety.</b> All methods are safe from any thread and lock-free.
 *
 * @param <T> the value type ({@link Void} for a plain signal)
 */
public final class AsyncEvent<T> {

    /** The event's state (the Kotlin face awaits it directly). */
    final Promise<T> state = new Promise<>();

    /** Sets the event with {@code value}; {@code true} if this call set it. */
    public boolean set(T value) {
        return state.complete(value);
    }

    /** Sets the event without a value ({@code null}); {@code true} if this call set it. */
    public boolean set() {
        return state.complete(null);
    }

    /**
     * Abandons the event: every waiter, and every later one, gets a
     * {@link java.util.concurrent.CancellationException}. {@code true} if this call decided it.
     */
    public boolean cancel() {
        return state.cancel();
    }

    /** Whether the event has been set (not abandoned). */
    public boolean isSet() {
        return state.outcomeOrNull() instanceof Outcome.Success;
    }

    /** The value it was set with, or {@code null} if not set (or set without a value). */
    public T valueOrNull() {
        return state.outcomeOrNull() instanceof Outcome.Success<T> s ? s.value() : null;
    }

    /**
     * A new waiter: completes with the value once the event is set (at once if it is). Cancelling
     * it withdraws this waiter only.
     */
    public Awaitable<T> awaitAsync() {
        return Waiter.of(state);
    }

    @Override
    public String toString() {
        Outcome<T> o = state.outcomeOrNull();
        return "AsyncEvent[" + (o == null ? "not set" : o instanceof Outcome.Success<T> s ? "set: " + s.value() : "abandoned") + "]";
    }
}
