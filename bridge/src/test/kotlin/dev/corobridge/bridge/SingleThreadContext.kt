package dev.corobridge.bridge

import dev.corobridge.bridge.internal.BoundDispatchers
import kotlinx.coroutines.CoroutineDispatcher
import java.util.concurrent.ExecutorService
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import kotlin.coroutines.CoroutineContext

/**
 * A pump-like test context: one named thread, an [ExecutionContext] whose Kotlin face is
 * registered with [BoundDispatchers] (as a pump's or a ring's is). Bridge has no MessagePump; this stands in for one.
 */
class SingleThreadContext(private val name: String) : ExecutionContext, AutoCloseable {
    private val executor: ExecutorService = Executors.newSingleThreadExecutor { Thread(it, "$name-thread") }
    private val dispatcher = Dispatcher()

    override fun getName(): String = name

    override fun getDispatcher(): CoroutineDispatcher = dispatcher

    override fun execute(command: Runnable) = executor.execute(command)

    override fun close() {
        executor.shutdown()
        check(executor.awaitTermination(30, TimeUnit.SECONDS)) { "$name did not terminate" }
    }

    override fun toString() = "SingleThreadContext[$name]"

    private inner class Dispatcher : CoroutineDispatcher() {
        init {
            BoundDispatchers.register(Dispatcher::class.java) { it.context }
        }

        val context: ExecutionContext get() = this@SingleThreadContext

        override fun dispatch(context: CoroutineContext, block: Runnable) = executor.execute(block)

        override fun toString() = "dispatcher of $name"
    }
}
