@file:JvmName("EventStreamFlows")

package dev.corobridge.stream

import dev.corobridge.bridge.internal.awaitDecided
import kotlinx.coroutines.flow.Flow
import java.util.concurrent.atomic.AtomicBoolean

// Kotlin face of event streams: a source or a stream is a Flow. (A Flow for Java: EventStreams.from.)

/**
 * The events of this source as a hot [Flow]: each collection subscribes when it starts and
 * unsubscribes when it ends (completes, fails or is cancelled) — no token to keep. Completes when
 * the source is closed, fails when it fails.
 *
 * An event handed to the collection is passed to the collector's `emit` even if the collection is
 * cancelled in that instant; events still buffered for it when it ends go with its subscription.
 */
public fun <T : Any> EventSource<T>.asFlow(): Flow<T> = handOffFlow {
    val stream = subscribe()
    try {
        emitEachTaken { stream.next() }
    } finally {
        stream.close()
    }
}

/**
 * The events of this stream as a [Flow] that can be collected once (a second collection fails
 * with [IllegalStateException], as kotlinx's `consumeAsFlow` does); the stream is closed when the
 * collection ends. An event handed to the collection is passed to the collector's `emit` even if
 * the collection is cancelled in that instant; closing the stream drops the events not taken yet.
 */
public fun <T : Any> EventStream<T>.consumeAsFlow(): Flow<T> {
    val collected = AtomicBoolean()
    return handOffFlow {
        check(collected.compareAndSet(false, true)) { "EventStream.consumeAsFlow() can be collected only once" }
        try {
            emitEachTaken { next() }
        } finally {
            close()
        }
    }
}

/**
 * Suspends for the next event: [Next.Value], [Next.End] or [Next.Failed]. If the coroutine is
 * cancelled while waiting, the request is withdrawn unless an event was already handed to it —
 * then that event is returned (never lost). Resumes on the caller's dispatcher.
 */
public suspend fun <T> EventStream<T>.next(): Next<T> {
    if (this !is ChannelEventStream<T>) return nextAsync().awaitDecided()
    val closedWith = closedWith()
    return if (closedWith != null) Next.End(closedWith) else ChannelFaces.nextSuspending(channel)
}
