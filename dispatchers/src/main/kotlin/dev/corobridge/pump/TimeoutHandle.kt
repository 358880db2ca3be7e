package dev.corobridge.pump

import kotlinx.coroutines.DelicateCoroutinesApi
import kotlinx.coroutines.DisposableHandle
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.GlobalScope
import kotlinx.coroutines.Job
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch

/**
 * The handle `invokeOnTimeout` returns for a pump timer. If the pump terminates before the timeout
 * is due, the timeout is not lost: it moves to kotlinx's default timer and still fires at its
 * deadline (it only cancels a coroutine, which is safe from any thread). Disposing the handle
 * cancels whichever of the two is live.
 *
 * Thread-safety: [dispose] and [moveToFallback] may race; the volatile fields make each see the
 * other's effect.
 */
internal class TimeoutHandle : DisposableHandle {
    @Volatile var timer: PumpTimer? = null
    @Volatile private var fallback: Job? = null
    @Volatile private var disposed = false

    @OptIn(DelicateCoroutinesApi::class)
    fun moveToFallback(block: Runnable, deadlineNanos: Long) {
        if (disposed) return
        // Rounded up to whole milliseconds (kotlinx's delay unit): a timeout may fire late, never
        // before its deadline. (Truncating fired it up to 1 ms early.) No overflow for huge values.
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
        timer?.cancel()
        fallback?.cancel()
    }
}
