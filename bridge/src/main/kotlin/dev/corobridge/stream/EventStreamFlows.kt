@file:JvmName("EventStreamFlows")

package dev.corobridge.stream

import dev.corobridge.sync.ChannelFaces
import dev.corobridge.sync.awaitDecided
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow

// Kotlin face of event streams: a source or a stream is a Flow. (A Flow for Java: EventStreams.of.)

/**
 * The events of this source as a hot [Flow]: each collection subscribes when it starts and
 * unsubscribes when it ends (completes, fails or is cancelled) — no token to keep. Completes when
 * the source is closed, fails when it fails.
 */
fun <T : Any> EventSource<T>.asFlow(): Flow<T> = flow {
    val stream = subscribe()
    try {
        emitAllOf(stream)
    } finally {
        stream.close()
    }
}

/**
 * The events of this stream as a [Flow] that can be collected once; the stream is closed when the
 * collection ends.
 */
fun <T : Any> EventStream<T>.consumeAsFlow(): Flow<T> = flow {
    try {
        emitAllOf(this@consumeAsFlow)
    } finally {
        close()
    }
}

/**
 * Suspends for the next event: [Next.Value], [Next.End] or [Next.Failed]. If the coroutine is
 * cancelled while waiting, the request is withdrawn unless an event was already handed to it —
 * then that event is returned (never lost). Resumes on the caller's dispatcher.
 */
suspend fun <T> EventStream<T>.next(): Next<T> =
    if (this is ChannelEventStream<T>) ChannelFaces.nextSuspending(channel) else nextAsync().awaitDecided()

private suspend fun <T> kotlinx.coroutines.flow.FlowCollector<T>.emitAllOf(stream: EventStream<T>) {
    while (true) {
        when (val n = stream.next()) {
            is Next.Value -> emit(n.value())
            is Next.End -> return
            is Next.Failed -> throw n.error()
        }
    }
}
