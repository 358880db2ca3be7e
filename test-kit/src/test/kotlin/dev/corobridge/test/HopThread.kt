package dev.corobridge.test

import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.asCoroutineDispatcher
import java.util.concurrent.Executor
import java.util.concurrent.ExecutorService
import java.util.concurrent.Executors
import java.util.concurrent.Semaphore
import java.util.concurrent.TimeUnit

/**
 * A thread of its own for a coroutine to hop to and back from, which counts the tasks it has
 * finished: once the task that ran a `withContext(hop.dispatcher) { }` block has finished, the
 * coroutine's resumption is queued on its pump (kotlinx dispatches it at the end of that task), so
 * a test can [awaitTasks] and then drive the pump, without sleeping or polling.
 */
class HopThread(name: String) : AutoCloseable {
    private val thread: ExecutorService = Executors.newSingleThreadExecutor { r -> Thread(r, name).apply { isDaemon = true } }
    private val finished = Semaphore(0)

    val dispatcher: CoroutineDispatcher = Executor { task ->
        thread.execute {
            try {
                task.run()
            } finally {
                finished.release()
            }
        }
    }.asCoroutineDispatcher()

    /** Waits (bounded) until [n] more tasks have finished on this thread. */
    fun awaitTasks(n: Int = 1) {
        check(finished.tryAcquire(n, 60, TimeUnit.SECONDS)) { "the hop thread did not finish $n task(s) within 60 s" }
    }

    override fun close() {
        thread.shutdown()
    }
}
