package dev.corobridge.spring;

import java.util.concurrent.ConcurrentHashMap;

import io.netty.channel.EventLoop;
import org.springframework.core.Ordered;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

/**
 * Has a {@code Task} returned by a WebFlux handler deliver its value on the Netty event loop of the
 * request's connection: it puts an executor for that loop into the Reactor context under
 * {@link TaskReactiveAdapters#ANSWER_EXECUTOR}, where the {@code Task} adapter looks for it.
 *
 * <p>Why: a task completes on the thread that finished its last step, typically the message pump.
 * Without this filter WebFlux would go on from there: encode the body to JSON, commit the response
 * and hand the write to Netty, all on the UI-affinity thread, which then serves fewer hops per
 * second. With it the pump only computes the value; the answer is encoded and written on the
 * connection's own loop, where Netty writes without queueing (the profile that motivated it, and
 * the measured difference, are in benchmarks/HISTORY.md, "Web demo under load: where the hop's
 * cost went, and what changed (2026-12-01)").
 *
 * <p>Cost per request: one context entry (one {@code Context} per loop is made once and reused). A
 * task already complete when WebFlux subscribes on the loop delivers in place, with no hop.
 * Requests that are not Reactor Netty ones pass unchanged.
 *
 * <p>Registered by the starter with Reactor Netty on the class path unless
 * {@code corobridge.webflux.answer-on-event-loop=false}. Thread-safety: the per-loop cache is a
 * concurrent map; loops are few and live as long as the server.
 */
final class EventLoopAnswerFilter implements WebFilter, Ordered {

    private final ConcurrentHashMap<EventLoop, Context> contexts = new ConcurrentHashMap<>();

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        EventLoop loop = RequestEventLoops.of(exchange);
        Mono<Void> rest = chain.filter(exchange);
        return loop == null ? rest : rest.contextWrite(contexts.computeIfAbsent(loop,
                l -> Context.of(TaskReactiveAdapters.ANSWER_EXECUTOR, RequestEventLoops.inPlaceOrOn(l))));
    }

    /** Last: the context covers the handler however the filters before it are arranged. */
    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }

    @Override
    public String toString() {
        return "EventLoopAnswerFilter";
    }
}
