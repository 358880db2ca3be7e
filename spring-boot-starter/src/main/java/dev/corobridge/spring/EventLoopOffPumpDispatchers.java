package dev.corobridge.spring;

import java.util.function.Function;
import java.util.concurrent.ConcurrentHashMap;

import dev.corobridge.pump.MessagePump;
import io.netty.channel.EventLoop;
import kotlinx.coroutines.CoroutineDispatcher;
import kotlinx.coroutines.ExecutorsKt;
import org.springframework.web.server.ServerWebExchange;

/**
 * For {@link OffPumpHandlerFilter}: per request, an {@link OffPumpDispatcher} whose way off the pump
 * leads to the Netty event loop of the request's connection, so that the rest of a Kotlin suspend
 * handler (building, encoding and writing the answer) runs where Netty writes without queueing and
 * the answer costs one hop back instead of two (pump to CPU dispatcher, then CPU to the loop for
 * the write). Requests without such a loop get {@code elsewhere}.
 *
 * <p>The starter's default with Reactor Netty ({@code corobridge.webflux.suspend-dispatcher=off-pump},
 * {@code corobridge.webflux.answer-on-event-loop=true}). Handler code still never runs on the pump;
 * like any WebFlux handler code on an event loop, it must not block.
 *
 * <p>Thread-safety: one dispatcher per loop, made once in a concurrent map and shared; loops are
 * few and live as long as the server.
 */
final class EventLoopOffPumpDispatchers implements Function<ServerWebExchange, CoroutineDispatcher> {

    private final MessagePump pump;
    private final CoroutineDispatcher elsewhere;
    private final ConcurrentHashMap<EventLoop, OffPumpDispatcher> perLoop = new ConcurrentHashMap<>();

    /**
     * @param pump      the pump whose thread handler code must leave
     * @param elsewhere the dispatcher for requests that have no Netty event loop (e.g. an
     *                  {@link OffPumpDispatcher} to the CPU dispatcher)
     */
    EventLoopOffPumpDispatchers(MessagePump pump, CoroutineDispatcher elsewhere) {
        this.pump = java.util.Objects.requireNonNull(pump, "pump");
        this.elsewhere = java.util.Objects.requireNonNull(elsewhere, "elsewhere");
    }

    @Override
    public CoroutineDispatcher apply(ServerWebExchange exchange) {
        EventLoop loop = RequestEventLoops.of(exchange);
        if (loop == null) {
            return elsewhere;
        }
        return perLoop.computeIfAbsent(loop,
                l -> new OffPumpDispatcher(pump, ExecutorsKt.from(RequestEventLoops.inPlaceOrOn(l))));
    }

    @Override
    public String toString() {
        return "EventLoopOffPumpDispatchers[off " + pump.getName() + " to the request's event loop, else " + elsewhere + "]";
    }
}
