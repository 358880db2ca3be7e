package dev.corobridge.stream

import kotlinx.coroutines.DisposableHandle
import kotlinx.coroutines.InternalCoroutinesApi
import kotlinx.coroutines.Job
import kotlinx.coroutines.channels.ReceiveChannel
import kotlinx.coroutines.channels.SendChannel
import java.util.concurrent.CancellationException
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater
import kotlin.coroutines.Continuation
import kotlin.coroutines.CoroutineContext
import kotlin.coroutines.intrinsics.COROUTINE_SUSPENDED
import kotlin.coroutines.intrinsics.intercepted
import kotlin.coroutines.intrinsics.suspendCoroutineUninterceptedOrReturn

/**
 * A Kotlin coroutine's send to or receive from a kotlinx channel that had to wait: **one object
 * per suspended call**, which is at once the continuation of the kotlinx call, the cancellation
 * handler on the caller's [Job] and the cell in which the result meets the suspended caller.
 *
 * Same decision as [ChannelCall] (Java face) and [awaitDecided]: a cancellation of the caller
 * only *asks* the operation to withdraw. If it was withdrawn, the caller throws the cancellation;
 * if it had already matched, the caller gets the element (or "sent") and sees the cancellation at
 * its next suspension point. Nothing is lost or duplicated.
 *
 * ## Implementation overview
 * The kotlinx function is invoked with this object as its continuation; its context holds only a
 * private [Job] and no dispatcher, so kotlinx resumes it directly on the matching party's thread,
 * never replaced by a prompt cancellation: the result is the truth. If the call suspended, the
 * caller's intercepted continuation is stored, a handler is put on the caller's job (registered
 * only after the kotlinx call returned, so a withdrawal never meets kotlinx's own synchronous
 * resumption, which would drop an element), and one compare-and-set on [decision] meets the
 * result: whichever of "the caller has suspended" and "the result is here" comes second resumes
 * the caller (through its dispatcher, atomically: no prompt cancellation) or returns the result
 * to it without suspending. A cancellation of the caller cancels the private job, which withdraws
 * a still-waiting kotlinx call (kotlinx then resumes this object with a `CancellationException`
 * inside that cancel). Compared to a Java [ChannelCall] awaited with [awaitDecided] this saves the
 * outcome cell, its callback node and lambdas, the `Outcome` and the safe continuation. What is
 * left per suspended call besides this object is the wrapping's price: kotlinx's own continuation
 * for a continuation that is not a coroutine's, the private job with its child node, and the
 * handler node on the caller's job.
 *
 * **Memory effects.** The result fields are written before the compare-and-set on [decision] and
 * read after it, so the resumed caller sees them (and whatever the matching party did before).
 *
 * **Thread-safety.** Used by one caller; [resumeWith] and [invoke] may run on any thread.
 */
@OptIn(InternalCoroutinesApi::class)
internal class SuspendingChannelCall<R> private constructor(private val mode: Int) :
    Continuation<Any?>, (Throwable?) -> Unit {

    private val job = Job()

    override val context: CoroutineContext get() = job

    /** The caller's intercepted continuation, once it suspended. */
    private var caller: Continuation<R>? = null

    /** The handler on the caller's job, disposed by whoever resumes the caller. */
    private var onCancel: DisposableHandle? = null

    /** The kotlinx call's value or error (written before [decision] changes). */
    private var value: Any? = null
    private var error: Throwable? = null

    @Volatile
    private var cancelRequest: CancellationException? = null

    @Volatile
    private var decision = UNDECIDED

    /**
     * The body of the caller's `suspendCoroutineUninterceptedOrReturn`: makes the kotlinx call
     * (on [channel], sending [element] in [SEND] mode) with this continuation and returns the
     * caller's result, or `COROUTINE_SUSPENDED` after arranging the meeting described above.
     */
    @Suppress("UNCHECKED_CAST")
    private fun begin(uCont: Continuation<R>, channel: Any, element: Any?): Any? {
        val returned = try {
            if (mode == SEND) {
                SEND_FN(channel as SendChannel<Any?>, element, this)
            } else {
                RECEIVE_FN(channel as ReceiveChannel<Any?>, this)
            }
        } catch (e: Throwable) {
            return resultOf(null, e)
        }
        if (returned !== COROUTINE_SUSPENDED) {
            return resultOf(returned, null)
        }
        caller = uCont.intercepted()
        // invokeImmediately: a caller cancelled already withdraws at once (kotlinx resumes us inside).
        onCancel = uCont.context[Job]?.invokeOnCompletion(onCancelling = true, invokeImmediately = true, handler = this)
        if (DECISION.compareAndSet(this, UNDECIDED, SUSPENDED)) {
            return COROUTINE_SUSPENDED
        }
        onCancel?.dispose()
        return resultOf(value, error)
    }

    /** kotlinx resumes the call: the result. */
    override fun resumeWith(result: Result<Any?>) {
        error = result.exceptionOrNull()
        value = result.getOrNull()
        if (DECISION.compareAndSet(this, UNDECIDED, RESUMED)) {
            return // the caller has not suspended yet: it takes the result itself
        }
        onCancel?.dispose()
        val outcome = try {
            Result.success(resultOf(value, error))
        } catch (e: Throwable) {
            Result.failure(e)
        }
        caller!!.resumeWith(outcome)
    }

    /** The caller's job is cancelling: ask the kotlinx call to withdraw. */
    override fun invoke(cause: Throwable?) {
        val request = cause as? CancellationException ?: CancellationException("the waiting coroutine was cancelled")
        cancelRequest = request
        job.cancel(request)
    }

    /** The caller's result for the kotlinx call's [value] or [error]; throws what the caller throws. */
    @Suppress("UNCHECKED_CAST")
    private fun resultOf(value: Any?, error: Throwable?): R {
        if (error == null) {
            return when (mode) {
                SEND -> Unit as R
                NEXT -> Next.Value(value) as R
                else -> value as R
            }
        }
        val request = cancelRequest
        if (request != null && error is CancellationException) throw request
        return when (mode) {
            NEXT -> nextOfClose<Any?>(error) as R
            RECEIVE_OR_NULL -> when (val n = nextOfClose<Any?>(error)) {
                is Next.Failed -> throw n.error()
                else -> null as R
            }
            else -> throw error
        }
    }

    override fun toString() = "SuspendingChannelCall[mode=$mode, decision=$decision]"

    companion object {
        private const val SEND = 0
        private const val RECEIVE = 1
        private const val NEXT = 2
        private const val RECEIVE_OR_NULL = 3

        private const val UNDECIDED = 0
        private const val SUSPENDED = 1
        private const val RESUMED = 2

        private val DECISION: AtomicIntegerFieldUpdater<SuspendingChannelCall<*>> =
            AtomicIntegerFieldUpdater.newUpdater(SuspendingChannelCall::class.java, "decision")

        // Each is a tail call into the intrinsic: no state machine of its own is allocated per call.
        suspend fun <E> send(channel: SendChannel<E>, element: E): Unit =
            suspendCoroutineUninterceptedOrReturn { SuspendingChannelCall<Unit>(SEND).begin(it, channel, element) }

        suspend fun <E> receive(channel: ReceiveChannel<E>): E =
            suspendCoroutineUninterceptedOrReturn { SuspendingChannelCall<E>(RECEIVE).begin(it, channel, null) }

        suspend fun <E> next(channel: ReceiveChannel<E>): Next<E> =
            suspendCoroutineUninterceptedOrReturn { SuspendingChannelCall<Next<E>>(NEXT).begin(it, channel, null) }

        suspend fun <E> receiveOrNull(channel: ReceiveChannel<E>): E? =
            suspendCoroutineUninterceptedOrReturn { SuspendingChannelCall<E?>(RECEIVE_OR_NULL).begin(it, channel, null) }
    }
}

// The kotlinx suspend functions as plain functions taking the continuation last (how they compile).
@Suppress("UNCHECKED_CAST")
private val SEND_FN = SendChannel<Any?>::send as (SendChannel<Any?>, Any?, Continuation<Any?>) -> Any?

@Suppress("UNCHECKED_CAST")
private val RECEIVE_FN = ReceiveChannel<Any?>::receive as (ReceiveChannel<Any?>, Continuation<Any?>) -> Any?
