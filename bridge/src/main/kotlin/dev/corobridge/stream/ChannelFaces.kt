package dev.corobridge.stream

import dev.corobridge.bridge.internal.awaitDecided
import dev.corobridge.bridge.internal.Completions
import dev.corobridge.bridge.Awaitable
import kotlinx.coroutines.channels.Channel
import kotlinx.coroutines.channels.ClosedReceiveChannelException
import kotlinx.coroutines.channels.ReceiveChannel
import kotlinx.coroutines.channels.SendChannel

/**
 * The operations of the channel faces on a kotlinx channel (an event stream's, a flow's
 * `produceIn`, a `callbackFlow`'s): a non-suspending fast path when the operation can complete
 * now, else a [ChannelCall] (Java) or a [SuspendingChannelCall] (Kotlin). (`AsyncChannel` has a
 * channel of its own, `ChannelCore`, and its own waiters.)
 */
internal object ChannelFaces {

    @JvmStatic
    fun <E> newChannel(capacity: Int): Channel<E> = Channel(capacity)

    @JvmStatic
    fun <E> send(channel: SendChannel<E>, element: E): Awaitable<Void?> =
        if (channel.trySend(element).isSuccess) Completions.done() else SendCall(channel, element).start()

    @JvmStatic
    fun <E> receive(channel: ReceiveChannel<E>): Awaitable<E> {
        val r = channel.tryReceive()
        @Suppress("UNCHECKED_CAST")
        return if (r.isSuccess) Completions.value(r.getOrThrow()) else ReceiveCall(channel).start()
    }

    @JvmStatic
    fun <E> next(channel: ReceiveChannel<E>): Awaitable<Next<E>> {
        val r = channel.tryReceive()
        return when {
            r.isSuccess -> Completions.value(Next.Value(r.getOrThrow()))
            r.isClosed -> Completions.value(nextOfClose(r.exceptionOrNull()))
            else -> NextCall(channel).start()
        }
    }

    /** The element, or `null` if none is ready; throws the close cause once closed and drained. */
    @JvmStatic
    fun <E> tryReceive(channel: ReceiveChannel<E>): E? {
        val r = channel.tryReceive()
        if (r.isSuccess) return r.getOrThrow()
        if (r.isClosed) throw r.exceptionOrNull() ?: ClosedReceiveChannelException("Channel was closed")
        return null
    }

    /** `true` if sent now; `false` if it would have to wait or the channel is closed. */
    @JvmStatic
    fun <E> offer(channel: SendChannel<E>, element: E): Boolean = channel.trySend(element).isSuccess

    /** `true` if sent now, `false` if it would have to wait; throws once closed for sending. */
    @JvmStatic
    fun <E> trySend(channel: SendChannel<E>, element: E): Boolean {
        val r = channel.trySend(element)
        if (r.isSuccess) return true
        if (r.isClosed) throw r.exceptionOrNull() ?: kotlinx.coroutines.channels.ClosedSendChannelException("Channel was closed")
        return false
    }

    // ------------------------------------------------------------ Kotlin face (suspending)

    suspend fun <E> sendSuspending(channel: SendChannel<E>, element: E) {
        if (channel.trySend(element).isSuccess) return
        SuspendingChannelCall.send(channel, element)
    }

    suspend fun <E> receiveSuspending(channel: ReceiveChannel<E>): E {
        val r = channel.tryReceive()
        if (r.isSuccess) return r.getOrThrow()
        return SuspendingChannelCall.receive(channel)
    }

    suspend fun <E> nextSuspending(channel: ReceiveChannel<E>): Next<E> {
        val r = channel.tryReceive()
        if (r.isSuccess) return Next.Value(r.getOrThrow())
        if (r.isClosed) return nextOfClose(r.exceptionOrNull())
        return SuspendingChannelCall.next(channel)
    }

    /** [nextSuspending] without the [Next]: the element, or `null` at the end; throws a close cause. */
    suspend fun <E> receiveOrNullSuspending(channel: ReceiveChannel<E>): E? {
        val r = channel.tryReceive()
        if (r.isSuccess) return r.getOrThrow()
        if (r.isClosed) {
            val end = nextOfClose<E>(r.exceptionOrNull())
            if (end is Next.Failed) throw end.error()
            return null
        }
        return SuspendingChannelCall.receiveOrNull(channel)
    }
}
