package dev.corobridge.spring;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

import io.netty.channel.EventLoop;
import org.jspecify.annotations.Nullable;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.web.server.ServerWebExchange;
import reactor.netty.Connection;

/**
 * The Netty event loop that serves a request's connection under Reactor Netty, and an executor
 * that hands work to it.
 *
 * <p>Why: a handler's answer (serialising the body, writing the response) is cheapest on that
 * loop. Netty writes from any other thread by queueing a task to the loop anyway, and code that
 * finishes on the message pump would otherwise serialise and write there, on the UI-affinity
 * thread (see {@link EventLoopAnswerFilter}, {@link EventLoopOffPumpDispatchers}).
 *
 * <p>Only loaded where Reactor Netty is on the class path (the auto-configuration checks).
 * Thread-safety: stateless; safe from any thread.
 */
final class RequestEventLoops {

    private RequestEventLoops() {
    }

    /**
     * The event loop of the connection {@code exchange} arrived on, or {@code null} when the request
     * is not a Reactor Netty one (another server, a mock exchange). Sees through request decorators.
     */
    static @Nullable EventLoop of(ServerWebExchange exchange) {
        Object nativeRequest;
        try {
            nativeRequest = ServerHttpRequestDecorator.getNativeRequest(exchange.getRequest());
        } catch (IllegalArgumentException | IllegalStateException none) {
            return null; // a request type Spring cannot unwrap, or a mock without a native request
        }
        return nativeRequest instanceof Connection connection ? connection.channel().eventLoop() : null;
    }

    /**
     * An executor that runs a task at once when called on {@code loop}'s thread, and otherwise
     * hands it to {@code loop}. A loop that refuses the task (it is shutting down) gets it run on
     * the calling thread instead, so that the answer (or its cancellation) is never lost.
     */
    static Executor inPlaceOrOn(EventLoop loop) {
        return task -> {
            if (loop.inEventLoop()) {
                task.run();
                return;
            }
            try {
                loop.execute(task);
            } catch (RejectedExecutionException shuttingDown) {
                task.run();
            }
        };
    }
}
