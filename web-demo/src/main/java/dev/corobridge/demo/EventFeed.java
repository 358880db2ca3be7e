package dev.corobridge.demo;

import org.springframework.http.codec.ServerSentEvent;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;
import reactor.util.concurrent.Queues;

import dev.corobridge.demo.board.SubscriberFellBehindException;

/**
 * The feed of one event stream: the events a store listener offers on the pump, buffered for the
 * subscriber up to {@code demo.event-buffer}, and the stream's end.
 *
 * <p>A subscriber that falls further behind fails its stream at once with
 * {@link SubscriberFellBehindException}: the failure travels on a signal of its own beside the
 * events ({@code takeUntilOther}), because a buffered stream delivers an error only after the events
 * before it, which a client that does not read never takes; its buffered events are dropped with
 * the cancelled buffer. The normal end ({@link #end}) comes after the buffered events.
 *
 * <p>Thread-safety: one emitter at a time ({@link #offer} and {@link #end} on the pump); {@link #flux}
 * is subscribed once (a unicast buffer).
 */
final class EventFeed {

    private final int buffer;
    private final Sinks.Many<ServerSentEvent<Object>> events;
    private final Sinks.Empty<Void> fellBehind = Sinks.empty();

    EventFeed(int buffer) {
        this.buffer = buffer;
        this.events = Sinks.many().unicast().onBackpressureBuffer(Queues.<ServerSentEvent<Object>>get(buffer).get());
    }

    /**
     * Offers {@code event}: {@code true} if it is buffered for the subscriber; {@code false} if the
     * subscriber fell behind (its stream fails now) or is gone, and the listener should leave.
     */
    boolean offer(ServerSentEvent<Object> event) {
        Sinks.EmitResult r = events.tryEmitNext(event);
        if (r.isSuccess()) {
            return true;
        }
        if (r == Sinks.EmitResult.FAIL_OVERFLOW) {
            fellBehind.tryEmitError(new SubscriberFellBehindException(buffer));
        }
        events.tryEmitComplete();
        return false;
    }

    /** Ends the stream after the events buffered so far. */
    void end() {
        events.tryEmitComplete();
    }

    /** The stream: the events, ending with {@link #end} or failing as soon as the subscriber fell behind. */
    Flux<ServerSentEvent<Object>> flux() {
        return events.asFlux().takeUntilOther(fellBehind.asMono());
    }
}
