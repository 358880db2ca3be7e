package dev.corobridge.dispatchers.internal

import kotlinx.coroutines.DelicateCoroutinesApi
import kotlinx.coroutines.DisposableHandle
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.GlobalScope
import kotlinx.coroutines.Job
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch

/**
 * The handle `invokeOnTimeout` returns for a timeout set on one of our contexts (a pump's timer, a
 * ring's event-loop timer). If the context terminates before the timeout is due, the timeout is not
 * lost: [moveToFallback] moves it to kotlinx's default timer, where it still fires at its deadline
 * (it only cancels a coroutine, which is safe from any thread). Disposing the handle cancels
 * whichever of the two is live.
 *
 * Thread-safety: [dispose] and [moveToFallback] may race; the volatile fields make each see the
 * other's effect (a move that loses the race cancels the job it started).
 *
 * @param block what the timeout runs when it fires
 * @param deadlineNanos when it is due, on `System.nanoTime()`'s scale
 */
internal class MovableTimeout(private val block: Runnable, private val deadlineNanos: Long) : DisposableHandle {
    /** Cancels the timer on the context itself; set once the timer is scheduled. */
    @Volatile var cancelTimer: Runnable? = null
    @Volatile private var fallback: Job? = null
    @Volatile private var disposed = false

    @OptIn(DelicateCoroutinesApi::class)
    fun moveToFallback() {
        if (disposed) return
        // Rounded up to whole milliseconds (kotlinx's delay unit): a timeout may fire late, never
        // before its deadline. No overflow for huge values.
        val remainingNanos = deadlineNanos - System.nanoTime()
        val remainingMillis = if (remainingNanos <= 0) 0L else (remainingNanos - 1) / 1_000_000 + 1
        val job = GlobalScope.launch(Dispatchers.Default) {
            delay(remainingMillis)
            block.run()
        }
        fallback = job
        if (disposed) job.cancel()
    }

    override fun dispose() {
        disposed = true
        cancelTimer?.run()
        fallback?.cancel()
    }

    internal companion object {
        /**
         * The deadline of a timeout of [timeMillis] set now. `nanoTime` values are compared by
         * difference, so the sum may wrap for huge timeouts: the remaining time stays right.
         */
        fun deadlineIn(timeMillis: Long): Long =
            System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(timeMillis)
    }
}
