package dev.corobridge.stream;

import dev.corobridge.bridge.Awaitable;
import dev.corobridge.bridge.internal.Completions;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicBoolean;
import kotlinx.coroutines.channels.ReceiveChannel;

/**
 * An {@link EventStream} reading a kotlinx channel (a subscriber's buffer of an {@link EventSource},
 * or a flow's {@code produceIn}): {@code nextAsync()} is the channel face's receive with the end as a
 * value, {@code close()} cancels the channel (which stops a producing coroutine) and runs
 * {@code onClose} once.
 */
final class ChannelEventStream<T> implements EventStream<T> {

    final ReceiveChannel<T> channel;
    private final Runnable onClose;
    private final String name;
    private final AtomicBoolean closed = new AtomicBoolean();
    /**
     * Why the subscriber closed it, once it has: every later next is the end with it. The channel
     * alone cannot say so: kotlinx keeps a channel's first close cause, so a source that had
     * failed or closed before would still hand out its buffered events and then its own end.
     */
    private volatile CancellationException closedWith;

    ChannelEventStream(ReceiveChannel<T> channel, Runnable onClose, String name) {
        this.channel = channel;
        this.onClose = onClose;
        this.name = name;
    }

    @Override
    public Awaitable<Next<T>> nextAsync() {
        CancellationException c = closedWith;
        return c != null ? Completions.value(new Next.End<>(c)) : ChannelFaces.next(channel);
    }

    /** The subscriber's close, if it closed the stream: what every next returns then. */
    CancellationException closedWith() {
        return closedWith;
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            CancellationException c = new CancellationException("event stream closed by its subscriber");
            closedWith = c;
            channel.cancel(c);
            if (onClose != null) {
                onClose.run();
            }
        }
    }

    @Override
    public String toString() {
        return "EventStream[" + name + (closed.get() ? ", closed" : "") + "]";
    }
}
