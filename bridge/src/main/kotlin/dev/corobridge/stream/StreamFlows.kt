package dev.corobridge.stream

import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.channels.ReceiveChannel
import kotlinx.coroutines.channels.awaitClose
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.buffer
import kotlinx.coroutines.flow.callbackFlow
import kotlinx.coroutines.flow.produceIn

// The coroutine plumbing behind the Java classes of this package. Internal: the public Kotlin API
// is in EventStreamFlows.kt; Java uses Flows and EventStreams.

internal object StreamFlows {

    /** Collects [flow] in a coroutine of its own on [dispatcher] into a channel of [capacity]. */
    @JvmStatic
    fun <T> produce(flow: Flow<T>, dispatcher: CoroutineDispatcher, capacity: Int): ReceiveChannel<T> =
        flow.buffer(capacity).produceIn(CoroutineScope(dispatcher))

    /** A cold flow whose every collection runs [producer] with an emitter on a `callbackFlow` channel. */
    @JvmStatic
    fun <T> create(capacity: Int, producer: FlowProducer<T>): Flow<T> = callbackFlow {
        val emitter = ChannelFlowEmitter(this)
        try {
            producer.produce(emitter)
        } catch (e: Throwable) {
            try {
                emitter.ended() // the collection ends with the failure: its close actions run now
            } catch (closing: Throwable) {
                if (closing !== e) e.addSuppressed(closing)
            }
            throw e
        }
        awaitClose { emitter.ended() }
    }.buffer(capacity)
}
