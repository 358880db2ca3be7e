package dev.corobridge.reactor;

import dev.corobridge.context.CapturedContext;
import dev.corobridge.context.ContextPropagation;
import dev.corobridge.reactor.internal.SubscriberContext;
import java.util.Objects;
import java.util.function.Supplier;
import reactor.util.context.ContextView;

/**
 * A Reactor subscriber's {@code Context} as the thread-bound context that tasks carry, for code that
 * runs without Reactor's automatic context propagation (Spring Boot's default,
 * {@code spring.reactor.context-propagation=limited}): there a handler's operators run with none
 * of the request's thread-locals set, so a task started in one captures nothing.
 *
 * <pre>{@code
 * Mono.deferContextual(ctx -> ReactorContexts.with(ctx, () -> {
 *     log.debug("handling");                        // the request's MDC and trace are set here
 *     return TaskMono.toMono(Task.start(pump, board::snapshot)); // the task carries them on
 * }));
 * }</pre>
 *
 * <p>The values are those of the thread-locals registered with Micrometer's {@code ContextRegistry}
 * (an {@code Observation} among them, which puts its span's trace ids into the MDC when it is put in
 * scope), taken from the {@code Context} as Reactor's own propagation takes them. Without
 * {@code io.micrometer:context-propagation} on the class path, or for an empty {@code Context},
 * nothing is set and the thread's own values stay.
 *
 * <p><b>Cost.</b> One restore and one put-back per call, whatever the chain does afterwards; automatic
 * propagation pays them around every operator of the chain.
 *
 * <p><b>Thread-safety.</b> Stateless; safe from any thread. The values are set on the calling thread
 * only, and its own values are back when the method returns or throws.
 */
public final class ReactorContexts {

    private ReactorContexts() {
    }

    /**
     * Calls {@code body} with {@code context}'s registered values as the calling thread's, then puts
     * the thread's own values back (also when {@code body} throws). A registered thread-local without
     * a value in {@code context} is left as the thread has it. If an accessor refuses its value, the
     * values set before it are put back and its exception is thrown without calling {@code body}; if
     * putting a value back fails, every other value is still put back, then the first failure is
     * thrown (added as suppressed to {@code body}'s exception when {@code body} threw).
     *
     * @throws NullPointerException if {@code context} or {@code body} is {@code null}
     */
    public static <T> T with(ContextView context, Supplier<T> body) {
        Objects.requireNonNull(context, "context");
        Objects.requireNonNull(body, "body");
        return SubscriberContext.with(context, body);
    }

    /**
     * The thread-bound context a task started by {@code context}'s subscriber would carry: what
     * {@link ContextPropagation#capture()} captures while {@code context}'s values are set (see
     * {@link #with}). For a coroutine, {@code PropagatedContext(ReactorContexts.capture(ctx))}
     * carries it through every resume.
     *
     * @throws NullPointerException if {@code context} is {@code null}
     */
    public static CapturedContext capture(ContextView context) {
        return with(context, ContextPropagation::capture);
    }
}
