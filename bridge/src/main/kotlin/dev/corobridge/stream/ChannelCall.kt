package dev.corobridge.stream

import dev.corobridge.bridge.internal.KotlinxCall
import dev.corobridge.bridge.internal.stateSuffix
import dev.corobridge.bridge.Outcome
import kotlinx.coroutines.channels.ClosedReceiveChannelException
import kotlinx.coroutines.channels.ReceiveChannel
import kotlinx.coroutines.channels.SendChannel
import java.util.concurrent.CancellationException
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater
import kotlin.coroutines.Continuation

/**
 * A Java caller's send to or receive from a kotlinx channel.
 *
 * **The operation decides its cancellation.** An element that changed hands cannot be given back
 * (a channel has no "push to the front"), so `cancel()` only *asks*: it withdraws the waiting
 * operation and returns `true` if that worked — the outcome is then cancelled and nothing was
 * sent or received. If the operation had already matched, `cancel()` returns `false` and the
 * outcome is the operation's own: the received element, or "sent". A cancelled receiver never
 * loses an element and a cancelled sender never has its element delivered behind its back.
 * The decision is synchronous: kotlinx resumes a withdrawn call inside the cancel.
 *
 * **Blocking join.** A thread in `join()` (a virtual thread, typically) is kept in one field and
 * unparked by the deciding party itself, as soon as the outcome is published: no callback node,
 * no callback (`OutcomeCell`'s `join()`, shared by every wait of the sync primitives).
 */
internal abstract class ChannelCall<R, T> : KotlinxCall<R, T>() {

    @Volatile
    private var cancelRequest: CancellationException? = null

    /** The outcome for a value of the kotlinx function. */
    protected abstract fun success(value: R?): Outcome<T>

    /** The outcome for an error that is not our own withdrawal (a closed or cancelled channel). */
    protected open fun failure(error: Throwable): Outcome<T> = Outcome.ofError(error)

    final override fun onResult(value: R?, error: Throwable?) {
        if (error == null) {
            decide(success(value))
        } else {
            val request = cancelRequest
            decide(if (request != null && error is CancellationException) Outcome.Cancelled(request) else failure(error))
        }
    }

    /** Starts `channel.receive()` with this call as its continuation (a receive of either kind). */
    protected fun startReceiving(channel: ReceiveChannel<*>) {
        try {
            @Suppress("UNCHECKED_CAST")
            started(RECEIVE(channel as ReceiveChannel<Any?>, this as Continuation<Any?>))
        } catch (e: Throwable) {
            onResult(null, e)
        }
    }

    final override fun cancel(): Boolean = cancel(CancellationException("channel operation cancelled"))

    final override fun cancel(cause: CancellationException): Boolean {
        if (isDone || !CANCEL.compareAndSet(this, null, cause)) return false
        withdraw(cause)
        val outcome = outcomeOrNull()
        return outcome is Outcome.Cancelled && outcome.cause() === cause
    }

    private companion object {
        @Suppress("UNCHECKED_CAST")
        val CANCEL: AtomicReferenceFieldUpdater<ChannelCall<*, *>, CancellationException?> =
            AtomicReferenceFieldUpdater.newUpdater(
                ChannelCall::class.java, CancellationException::class.java, "cancelRequest"
            ) as AtomicReferenceFieldUpdater<ChannelCall<*, *>, CancellationException?>
    }
}

/** `SendChannel.send(element)` for a Java caller. */
internal class SendCall<E>(private val channel: SendChannel<E>, private val element: E) : ChannelCall<Unit, Void?>() {

    fun start(): SendCall<E> {
        try {
            @Suppress("UNCHECKED_CAST")
            started(SEND(channel as SendChannel<Any?>, element, this))
        } catch (e: Throwable) {
            onResult(null, e)
        }
        return this
    }

    override fun success(value: Unit?): Outcome<Void?> = SENT

    override fun toString() = "send($element)" + stateSuffix()
}

/** `ReceiveChannel.receive()` for a Java caller: fails with the close cause at the end. */
internal class ReceiveCall<E>(private val channel: ReceiveChannel<E>) : ChannelCall<E, E>() {

    fun start(): ReceiveCall<E> = apply { startReceiving(channel) }

    @Suppress("UNCHECKED_CAST")
    override fun success(value: E?): Outcome<E> = Outcome.Success(value as E)

    override fun toString() = "receive" + stateSuffix()
}

/**
 * `ReceiveChannel.receive()` for a Java caller that wants the end as a value: a [Next.Value], or
 * [Next.End] when the channel was closed (or cancelled), or [Next.Failed] with the close cause.
 */
internal class NextCall<E>(private val channel: ReceiveChannel<E>) : ChannelCall<E, Next<E>>() {

    fun start(): NextCall<E> = apply { startReceiving(channel) }

    @Suppress("UNCHECKED_CAST")
    override fun success(value: E?): Outcome<Next<E>> = Outcome.Success(Next.Value(value as E))

    override fun failure(error: Throwable): Outcome<Next<E>> = Outcome.Success(nextOfClose(error))

    override fun toString() = "next" + stateSuffix()
}

/** The outcome of every completed send (immutable, so shared). */
private val SENT = Outcome.Success<Void?>(null)

// The kotlinx suspend functions as plain functions taking the continuation last (how they compile).
@Suppress("UNCHECKED_CAST")
private val SEND = SendChannel<Any?>::send as (SendChannel<Any?>, Any?, Continuation<Unit>) -> Any?

@Suppress("UNCHECKED_CAST")
private val RECEIVE = ReceiveChannel<Any?>::receive as (ReceiveChannel<Any?>, Continuation<Any?>) -> Any?

/** What a receive that found the channel closed (with [error]) means as a [Next]. */
internal fun <E> nextOfClose(error: Throwable?): Next<E> = when (error) {
    null, is ClosedReceiveChannelException -> Next.End(null)
    is CancellationException -> Next.End(error)
    else -> Next.Failed(error)
}
