package dev.corobridge.sync

import dev.corobridge.stream.Next
import kotlinx.coroutines.DisposableHandle
import kotlinx.coroutines.InternalCoroutinesApi
import kotlinx.coroutines.Job
import java.util.concurrent.CancellationException
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater
import kotlin.coroutines.Continuation
import kotlin.coroutines.intrinsics.COROUTINE_SUSPENDED
import kotlin.coroutines.intrinsics.intercepted
import kotlin.coroutines.intrinsics.suspendCoroutineUninterceptedOrReturn

/**
 * A Kotlin coroutine's send or receive on an [AsyncChannel] that has to wait: one object, which is
 * at once the waiter queued in the [ChannelCore], the cancellation handler on the caller's [Job]
 * and the cell in which the result meets the suspended caller. After the wait it is kept in its
 * core for the next one, so that a steady stream of waits on a channel allocates only the
 * handler's node on the caller's job.
 *
 * A cancellation of the caller only *asks* the operation to withdraw: if it was still queued, it
 * is taken out and the caller throws the cancellation (nothing sent or received); if it had
 * already matched, the caller gets the element (or "sent") and sees the cancellation at its next
 * suspension point. Nothing is lost or duplicated.
 *
 * ## Implementation overview
 * [begin] hands this waiter to the core, which completes it at once or queues it. If queued, a
 * handler is put on the caller's job (`invokeImmediately`: a caller cancelled already withdraws at
 * once), and one compare-and-set on [word] meets the completion: whichever of "the caller has
 * suspended" and "the result is here" comes second resumes the caller or returns the result to it
 * without suspending. The caller is resumed through its intercepted continuation, which delivers
 * the result as is (no prompt-cancellation check replaces it): the result is the truth. Whoever
 * resumes the caller disposes the handler. [word] holds the mode (send, receive, next,
 * receive-or-null) above the decision bits.
 *
 * **Recycling.** Whoever takes the result (the caller, or the completer that resumes it) reads it,
 * resets the fields and offers the waiter to its core ([ChannelCore.putSpare]) before resuming
 * the caller; nothing touches a waiter after completing it, except a handler invocation that was
 * already under way on the job of an earlier use when the handler was disposed. That one may
 * reach [invoke] while the waiter serves another caller: the core asks [mayWithdraw] under its
 * lock, which allows a withdrawal only while the *current* caller's job is cancelling — so a stale
 * invocation withdraws nothing (if the current caller is cancelling too, its own handler would
 * withdraw it anyway).
 *
 * **Memory effects.** The core writes the result ([item]) under its lock before [complete]; the
 * completer's compare-and-set on [word] (or the caller's resumption through its dispatcher)
 * publishes it to the caller. The fields of a recycled waiter are published to its next user by
 * the atomic exchange of the core's spare slot.
 *
 * **Thread-safety.** Used by one caller at a time; [complete] and [invoke] may run on any thread.
 */
@OptIn(InternalCoroutinesApi::class)
internal class ChannelSuspension<R> private constructor(private val core: ChannelCore<*>) :
    ChannelWaiter(), (Throwable?) -> Unit {

    /** The mode above [DECISION_MASK]; below it, undecided, suspended, or resumed with a kind. */
    @Volatile
    private var word: Int = 0

    /** The caller's intercepted continuation. */
    private var caller: Continuation<R>? = null

    /** The caller's job (null if it has none), for [mayWithdraw]. */
    private var job: Job? = null

    /** The handler on the caller's job, disposed by whoever resumes the caller. */
    private var onCancel: DisposableHandle? = null

    private val mode: Int get() = word ushr MODE_SHIFT

    override fun isSender(): Boolean = mode == SEND

    /** Only the current caller's cancellation withdraws (see "Recycling"). Under the core's lock. */
    override fun mayWithdraw(): Boolean = job?.isActive == false

    /** The body of the caller's `suspendCoroutineUninterceptedOrReturn` (see the class comment). */
    private fun begin(uCont: Continuation<R>, mode: Int, element: Any?): Any? {
        word = mode shl MODE_SHIFT
        item = element
        val callerJob = uCont.context[Job]
        job = callerJob
        val result = if (mode == SEND) core.send(this) else core.receive(this)
        if (result != ChannelCore.WAIT) {
            return finish(result)
        }
        caller = uCont.intercepted()
        onCancel = callerJob?.invokeOnCompletion(onCancelling = true, invokeImmediately = true, handler = this)
        val undecided = mode shl MODE_SHIFT
        if (DECISION.compareAndSet(this, undecided, undecided or SUSPENDED)) {
            return COROUTINE_SUSPENDED
        }
        onCancel?.dispose()
        return finish((word and DECISION_MASK) - RESUMED)
    }

    /** The core's completion (see [ChannelWaiter.complete]). */
    override fun complete(kind: Int) {
        val undecided = word and MODE_MASK
        if (DECISION.compareAndSet(this, undecided, undecided or (RESUMED + kind))) {
            return // the caller has not suspended yet: it takes the result itself
        }
        onCancel?.dispose()
        val c = caller!!
        val outcome = try {
            Result.success(resultOf(kind))
        } catch (e: Throwable) {
            Result.failure(e)
        }
        recycle()
        c.resumeWith(outcome)
    }

    /** The caller's job is cancelling: withdraw the operation if it is still queued. */
    override fun invoke(cause: Throwable?) {
        if (core.withdraw(this)) {
            item = cause as? CancellationException ?: CancellationException("the waiting coroutine was cancelled")
            complete(ChannelCore.WITHDRAWN)
        }
    }

    /** The caller's result for [kind] (or what it throws), the waiter recycled. */
    private fun finish(kind: Int): R = try {
        resultOf(kind)
    } finally {
        recycle()
    }

    private fun recycle() {
        caller = null
        job = null
        onCancel = null
        item = null
        core.putSpare(this)
    }

    /** The caller's result for a completion of [kind]; throws what the caller throws. */
    @Suppress("UNCHECKED_CAST")
    private fun resultOf(kind: Int): R {
        val x = item
        item = null
        return when (kind) {
            ChannelCore.VALUE -> when (mode) {
                SEND -> Unit as R
                NEXT -> Next.Value(x) as R
                else -> x as R
            }
            ChannelCore.CLOSED -> when (mode) {
                SEND -> throw core.sendException()
                RECEIVE -> throw core.receiveException()
                NEXT -> core.end<Any?>() as R
                else -> when (val end = core.end<Any?>()) {
                    is Next.Failed -> throw end.error()
                    else -> null as R
                }
            }
            else -> throw x as CancellationException
        }
    }

    override fun toString() = "ChannelSuspension[mode=$mode, word=$word]"

    internal companion object {
        private const val SEND = 0
        private const val RECEIVE = 1
        private const val NEXT = 2
        private const val RECEIVE_OR_NULL = 3

        private const val SUSPENDED = 1
        /** RESUMED + the completion kind: the result is here and the caller has not suspended. */
        private const val RESUMED = 2
        private const val DECISION_MASK = 7
        private const val MODE_SHIFT = 3
        private const val MODE_MASK = DECISION_MASK.inv()

        private val DECISION: AtomicIntegerFieldUpdater<ChannelSuspension<*>> =
            AtomicIntegerFieldUpdater.newUpdater(ChannelSuspension::class.java, "word")

        /** The core's spare waiter, or a new one. */
        @Suppress("UNCHECKED_CAST")
        private fun <R> obtain(core: ChannelCore<*>): ChannelSuspension<R> =
            core.takeSpare() as ChannelSuspension<R>? ?: ChannelSuspension(core)

        // The entry points: a non-suspending try first; each is a tail call into the intrinsic, so
        // no state machine is allocated per call.

        suspend fun <E : Any> send(core: ChannelCore<E>, element: E) {
            when (core.offer(element)) {
                ChannelCore.VALUE -> return
                ChannelCore.CLOSED -> throw core.sendException()
            }
            return suspendCoroutineUninterceptedOrReturn { obtain<Unit>(core).begin(it, SEND, element) }
        }

        suspend fun <E : Any> receive(core: ChannelCore<E>): E {
            val x = core.poll()
            if (x === ChannelCore.EMPTY) {
                return suspendCoroutineUninterceptedOrReturn { obtain<E>(core).begin(it, RECEIVE, null) }
            }
            if (x === ChannelCore.ENDED) throw core.receiveException()
            @Suppress("UNCHECKED_CAST")
            return x as E
        }

        suspend fun <E : Any> next(core: ChannelCore<E>): Next<E> {
            val x = core.poll()
            if (x === ChannelCore.EMPTY) {
                return suspendCoroutineUninterceptedOrReturn { obtain<Next<E>>(core).begin(it, NEXT, null) }
            }
            if (x === ChannelCore.ENDED) return core.end()
            @Suppress("UNCHECKED_CAST")
            return Next.Value(x as E)
        }

        suspend fun <E : Any> receiveOrNull(core: ChannelCore<E>): E? {
            val x = core.poll()
            if (x === ChannelCore.EMPTY) {
                return suspendCoroutineUninterceptedOrReturn { obtain<E?>(core).begin(it, RECEIVE_OR_NULL, null) }
            }
            if (x === ChannelCore.ENDED) {
                val end = core.end<E>()
                if (end is Next.Failed) throw end.error()
                return null
            }
            @Suppress("UNCHECKED_CAST")
            return x as E
        }
    }
}
