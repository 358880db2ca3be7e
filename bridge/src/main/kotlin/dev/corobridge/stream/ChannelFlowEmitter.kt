package dev.corobridge.stream

import dev.corobridge.bridge.Awaitable
import dev.corobridge.bridge.internal.Completions
import kotlinx.coroutines.DelicateCoroutinesApi
import kotlinx.coroutines.channels.ProducerScope
import java.util.concurrent.CancellationException
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.ConcurrentLinkedQueue

/**
 * The [FlowEmitter] of one collection of a [Flows.create] flow: sends into the `callbackFlow`
 * channel through the channel face (so a cancelled `emit` never delivers behind its caller's back),
 * and runs the close actions once when the collection ends.
 */
internal class ChannelFlowEmitter<T>(private val scope: ProducerScope<T>) : FlowEmitter<T> {

    private val closeActions = ConcurrentLinkedQueue<Runnable>()

    /** Emissions waiting for room in the channel, cancelled when the collection ends. */
    private val waiting: MutableSet<SendCall<T>> = ConcurrentHashMap.newKeySet()

    @Volatile
    private var ended = false

    /** How the producer ended the flow ("complete()" or "fail()"), once it has. */
    @Volatile
    private var endedBy: String? = null

    override fun emitAsync(value: T): Awaitable<Void?> {
        nonNull(value)
        val by = endedBy
        // The producer's own mistake, said as one: kotlinx would answer "Channel was closed", or
        // rethrow the error given to fail() as if emitting had failed with it.
        if (by != null) {
            return Completions.failed(IllegalStateException("emitted after this emitter's $by"))
        }
        val channel = scope.channel
        if (channel.trySend(value).isSuccess) return Completions.done()
        val emission = SendCall(channel, value).start()
        if (!emission.isDone) {
            // It waits for room. The collection's end must end it: cancelled from outside, kotlinx
            // only closes the flow's channel, which keeps a waiting sender that is no coroutine of
            // the producer's waiting for good.
            waiting.add(emission)
            emission.onComplete { waiting.remove(emission) }
            if (ended) emission.cancel(collectionEnded())
        }
        return emission
    }

    override fun tryEmit(value: T): Boolean = scope.channel.trySend(nonNull(value)).isSuccess

    /** A Java caller's null, refused as the channels and event sources refuse it (not Kotlin's IllegalArgumentException). */
    private fun nonNull(value: T): T = value ?: throw NullPointerException("value")

    override fun complete() {
        if (endedBy == null) endedBy = "complete()"
        scope.channel.close()
    }

    override fun fail(error: Throwable) {
        if (endedBy == null) endedBy = "fail()"
        scope.channel.close(error)
    }

    @OptIn(DelicateCoroutinesApi::class) // a snapshot is all isClosed() promises
    override fun isClosed(): Boolean = ended || scope.channel.isClosedForSend

    override fun onClose(action: Runnable) {
        closeActions.add(action)
        if (ended) runCloseActions()
    }

    /** The collection ended: end the emissions still waiting (cancelled), and run every close action once. */
    fun ended() {
        ended = true
        if (waiting.isNotEmpty()) {
            val cause = collectionEnded()
            for (emission in waiting) emission.cancel(cause)
        }
        runCloseActions()
    }

    private fun collectionEnded() = CancellationException("the flow's collection has ended")

    private fun runCloseActions() {
        while (true) {
            val action = closeActions.poll() ?: return
            action.run()
        }
    }
}
