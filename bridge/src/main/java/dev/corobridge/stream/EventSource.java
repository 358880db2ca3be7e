package dev.corobridge.stream;

import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import kotlinx.coroutines.channels.Channel;

/**
 * The publishing side of an event stream: {@link #publish} an event and every current subscriber
 * gets it; {@link #close()} (or {@link #fail}) ends the stream for all of them. The pump, for
 * example, publishes its state changes this way, and Java and Kotlin code subscribe alike.
 *
 * <pre>{@code
 * EventSource<State> states = new EventSource<>();
 * states.publish(State.LOADING);                 // from any thread, never waits (fine on the pump)
 *
 * try (EventStream<State> s = states.subscribe()) {                 // Java
 *     for (var e = s.nextAsync().join(); e.hasValue(); e = s.nextAsync().join()) { show(e.value()); }
 * }
 * states.asFlow().collect { show(it) }                              // Kotlin
 * states.close();                                // subscribers drain what they have, then see the end
 * }</pre>
 *
 * <ul>
 *   <li><b>Hot.</b> A subscriber sees the events published after it subscribed (for a Kotlin
 *       {@code asFlow()}: after its collection started), in publication order for events
 *       published from one thread.</li>
 *   <li><b>Never waits.</b> {@code publish} returns at once: each subscriber has its own unbounded
 *       buffer, so a slow subscriber costs memory, not the publisher's time. It returns
 *       {@code false} once the source is closed.</li>
 *   <li><b>Cancellation is a normal outcome.</b> {@link #close()} ends every stream with
 *       {@link Next.End} after its buffered events, {@link #fail} with {@link Next.Failed}; a
 *       subscriber that stops ({@link EventStream#close()}, or a Kotlin collection that ends or is
 *       cancelled) is unsubscribed with no token to keep. An event published concurrently with
 *       {@code close()} may reach only some subscribers.</li>
 * </ul>
 *
 * <h2>Implementation overview</h2>
 * Each subscription is an unbounded kotlinx {@code Channel}; the source keeps them in a
 * {@link CopyOnWriteArrayList} (publishing iterates it without locking; subscribing and
 * unsubscribing copy it). {@code publish} offers the event to each channel with the non-suspending
 * {@code trySend}. Termination is one compare-and-set of a terminal marker, then closing every
 * channel and dropping it from the list (its subscriber still drains it); a subscriber registers
 * first and checks the marker after, so one that races with termination is closed and dropped by
 * one side or the other (closing or removing twice is harmless).
 *
 * <p><b>Thread-safety.</b> All methods are safe from any thread.
 *
 * @param <T> the event type
 */
public final class EventSource<T> {

    private static final Object CLOSED = new Object();

    private final CopyOnWriteArrayList<Subscription> subscriptions = new CopyOnWriteArrayList<>();
    /** {@code null} while open, then {@link #CLOSED} or the failure. */
    private final AtomicReference<Object> terminal = new AtomicReference<>();
    private final String name;

    /** A source named for diagnostics. */
    public EventSource(String name) {
        this.name = Objects.requireNonNull(name, "name");
    }

    /** An unnamed source. */
    public EventSource() {
        this("events");
    }

    /**
     * Delivers {@code event} to every current subscriber, without waiting.
     *
     * @return {@code false} if the source is closed (the event is dropped)
     * @throws NullPointerException if {@code event} is null
     */
    public boolean publish(T event) {
        Objects.requireNonNull(event, "event");
        if (terminal.get() != null) {
            return false;
        }
        for (Subscription s : subscriptions) {
            ChannelFaces.offer(s.channel, event); // unbounded: fails only once that subscription is closed
        }
        return true;
    }

    /**
     * A new subscription, receiving the events published from now on. On a closed source it
     * ends at once.
     */
    public EventStream<T> subscribe() {
        Channel<T> channel = ChannelFaces.newChannel(Channel.UNLIMITED);
        Subscription s = new Subscription(channel);
        subscriptions.add(s);
        Object t = terminal.get();
        if (t != null) {
            terminate(channel, t);
            subscriptions.remove(s); // ended at once: not open, and not kept until its subscriber closes it
        }
        return s.stream;
    }

    /** Ends the stream: subscribers drain their buffered events, then see {@link Next.End}. */
    public boolean close() {
        return terminate(CLOSED);
    }

    /**
     * Ends the stream with {@code error}: subscribers drain, then see {@link Next.Failed}. A
     * {@link java.util.concurrent.CancellationException} is a cancellation, not a failure: they then
     * see {@link Next.End} carrying it, as every {@link Next} reports a cancellation.
     */
    public boolean fail(Throwable error) {
        return terminate(Objects.requireNonNull(error, "error"));
    }

    /** Whether {@link #close()} or {@link #fail} was called. */
    public boolean isClosed() {
        return terminal.get() != null;
    }

    /**
     * How many subscriptions are open (a snapshot): subscribed and not yet closed by their
     * subscriber, on a source not yet closed. Once the source is closed or failed it is 0, while the
     * subscribers still drain what they had buffered.
     */
    public int getSubscriberCount() {
        return subscriptions.size();
    }

    private boolean terminate(Object how) {
        if (!terminal.compareAndSet(null, how)) {
            return false;
        }
        for (Subscription s : subscriptions) {
            terminate(s.channel, how);
            // Ended: its subscriber drains the channel it holds; the source keeps nothing of it.
            // A subscribe() racing with this finds the marker set and removes its own.
            subscriptions.remove(s);
        }
        return true;
    }

    private static void terminate(Channel<?> channel, Object how) {
        channel.close(how == CLOSED ? null : (Throwable) how);
    }

    @Override
    public String toString() {
        return "EventSource[" + name + ", " + getSubscriberCount() + " subscribers" + (isClosed() ? ", closed" : "") + "]";
    }

    private final class Subscription {
        final Channel<T> channel;
        final ChannelEventStream<T> stream;

        Subscription(Channel<T> channel) {
            this.channel = channel;
            this.stream = new ChannelEventStream<>(channel, () -> subscriptions.remove(this), name);
        }
    }
}
