package dev.corobridge.stream;

import dev.corobridge.bridge.Awaitable;
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

    ChannelEventStream(ReceiveChannel<T> channel, Runnable onClose, String name) {
        this.channel = channel;
        this.onClose = onClose;
        this.name = name;
    }

    @Override
    public Awaitable<Next<T>> nextAsync() {
        return ChannelFaces.next(channel);
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            channel.cancel(new CancellationException("event stream closed by its subscriber"));
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
