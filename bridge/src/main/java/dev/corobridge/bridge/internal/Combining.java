package dev.corobridge.bridge.internal;

import dev.corobridge.bridge.Awaitable;
import dev.corobridge.bridge.Outcome;
import dev.corobridge.bridge.Registration;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.IntFunction;

/**
 * Internal API: not for use outside corobridge; may change without notice.
 *
 * <p>The subscriptions of the combinators ({@code Task.whenAll}, {@code Task.whenAny}) to their
 * inputs. Stateless; thread-safe.
 */
public final class Combining {

    private Combining() {
    }

    /**
     * Registers {@code callbackFor(i)} on each input {@code i} until {@code result} is decided, and
     * withdraws the registrations once it is (at once if an input decided it while registering):
     * a combination that is decided, or cancelled, leaves nothing on the inputs still pending, so
     * a long-lived input combined again and again does not collect callbacks.
     */
    public static <T> void subscribeAll(Awaitable<?> result, List<? extends Awaitable<? extends T>> inputs,
                                        IntFunction<Consumer<Outcome<? extends T>>> callbackFor) {
        Registration[] registrations = new Registration[inputs.size()];
        for (int i = 0; i < registrations.length && !result.isDone(); i++) {
            Consumer<Outcome<? extends T>> c = callbackFor.apply(i);
            registrations[i] = inputs.get(i).onComplete(c::accept);
        }
        // Filled before this registration publishes it to whichever thread decides the result.
        result.onComplete(o -> {
            for (Registration r : registrations) {
                if (r != null) {
                    r.dispose();
                }
            }
        });
    }
}
