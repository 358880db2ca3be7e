package dev.corobridge.sync

import dev.corobridge.bridge.internal.KotlinxCall
import dev.corobridge.bridge.internal.stateSuffix
import dev.corobridge.bridge.Outcome
import kotlinx.coroutines.sync.Mutex
import kotlinx.coroutines.sync.Semaphore
import kotlin.coroutines.Continuation

/**
 * A Java caller's wait for a permit of a kotlinx [Semaphore] or the lock of a kotlinx [Mutex].
 *
 * **Cancellation decides at once** (like any `Promise`): `cancel()` settles the outcome as
 * cancelled and withdraws the waiter. If kotlinx granted the permit at the same instant — the
 * grant and the cancel raced — the grant finds the outcome already decided and gives the permit
 * back ([giveBack]), so it passes to the next waiter in FIFO order. A cancelled waiter therefore
 * never holds a permit, and no permit is lost.
 */
internal abstract class PermitCall : KotlinxCall<Unit, Void?>() {

    /** Returns a permit granted to this call after it was cancelled. */
    protected abstract fun giveBack()

    final override fun onResult(value: Unit?, error: Throwable?) {
        if (error == null) {
            if (!decide(GRANTED)) giveBack()
        } else {
            decide(Outcome.ofError(error)) // after our own cancel: already settled, a no-op
        }
    }

    final override fun onDecided(outcome: Outcome<Void?>) {
        if (outcome is Outcome.Cancelled) withdraw(outcome.cause())
    }
}

/** The outcome of every granted permit (immutable, so shared). */
private val GRANTED = Outcome.Success<Void?>(null)

/** `Mutex.lock(owner)` for a Java caller. */
internal class LockCall(private val mutex: Mutex, private val owner: Any?) : PermitCall() {

    fun start(): LockCall {
        try {
            started(LOCK(mutex, owner, this))
        } catch (e: Throwable) {
            onResult(null, e)
        }
        return this
    }

    override fun giveBack() = mutex.unlock(owner)

    override fun toString() = "lock of $mutex" + (if (owner != null) " for $owner" else "") + stateSuffix()

    private companion object {
        @Suppress("UNCHECKED_CAST")
        val LOCK = Mutex::lock as (Mutex, Any?, Continuation<Unit>) -> Any?
    }
}

/** `Semaphore.acquire()` for a Java caller. */
internal class AcquireCall(private val semaphore: Semaphore) : PermitCall() {

    fun start(): AcquireCall {
        try {
            started(ACQUIRE(semaphore, this))
        } catch (e: Throwable) {
            onResult(null, e)
        }
        return this
    }

    override fun giveBack() = semaphore.release()

    override fun toString() = "acquire of $semaphore" + stateSuffix()

    private companion object {
        @Suppress("UNCHECKED_CAST")
        val ACQUIRE = Semaphore::acquire as (Semaphore, Continuation<Unit>) -> Any?
    }
}

