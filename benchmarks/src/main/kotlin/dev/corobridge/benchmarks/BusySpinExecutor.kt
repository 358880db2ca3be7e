package dev.corobridge.benchmarks

import java.util.concurrent.ConcurrentLinkedQueue
import java.util.concurrent.Executor

/**
 * A reference target for investigations, not one of the four: one thread that never
 * sleeps, polling its queue in a busy loop. Whatever it costs to hop to it is the cost of the hop
 * itself (queue, cache misses, the caller's own wake-ups) with no wake-up of the target. Burns a
 * core until [close]d.
 */
class BusySpinExecutor(threadName: String) : Executor, AutoCloseable {
    private val queue = ConcurrentLinkedQueue<Runnable>()
    @Volatile private var running = true
    /** The spinning thread. */
    val thread: Thread = Thread({
        while (running) {
            val r = queue.poll()
            if (r != null) r.run() else Thread.onSpinWait()
        }
    }, threadName).apply { isDaemon = true; start() }

    override fun execute(command: Runnable) {
        queue.offer(command)
    }

    override fun close() {
        running = false
        thread.join()
    }
}
