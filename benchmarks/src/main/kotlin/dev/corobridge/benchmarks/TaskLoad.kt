package dev.corobridge.benchmarks

import dev.corobridge.bridge.Task
import dev.corobridge.bridge.await
import dev.corobridge.context.ContextPropagation
import dev.corobridge.context.PropagatedContext
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.async
import kotlinx.coroutines.future.await
import kotlinx.coroutines.runBlocking
import java.util.concurrent.Callable
import java.util.concurrent.CompletableFuture
import java.util.concurrent.Executor
import java.util.function.Supplier
import kotlin.coroutines.CoroutineContext

/** The Kotlin loops of TaskOverheadBenchmark: [ops] start + await, one after another; returns the sum of results. */
object TaskLoad {

    /** kotlinx async/await with the benchmark thread waiting (parked inside runBlocking's event loop). */
    @JvmStatic
    fun asyncFromThread(dispatcher: CoroutineDispatcher, ops: Int, body: Callable<Int>): Long = runBlocking {
        var sum = 0L
        repeat(ops) { sum += async(dispatcher) { body.call() }.await() }
        sum
    }

    /**
     * `Task.start(dispatcher, body)` awaited by suspending, from a coroutine on [dispatcher]. The
     * coroutine carries the calling thread's context when there is any (a [PropagatedContext], as a
     * corobridge task's coroutine would), so the tasks it starts capture it on the executor.
     */
    @JvmStatic
    fun taskInCoroutine(dispatcher: CoroutineDispatcher, ops: Int, body: Callable<Int>): Long =
        runBlocking(withCallersContext(dispatcher)) {
            var sum = 0L
            repeat(ops) { sum += Task.start(dispatcher, body).await() }
            sum
        }

    /** [dispatcher] plus a [PropagatedContext] of the current thread's context, if it has one to carry. */
    private fun withCallersContext(dispatcher: CoroutineDispatcher): CoroutineContext {
        val captured = ContextPropagation.capture()
        return if (captured.isEmpty) dispatcher else dispatcher + PropagatedContext(captured)
    }

    /** `CompletableFuture.supplyAsync(body, executor)` awaited by suspending, from a coroutine on [dispatcher]. */
    @JvmStatic
    fun cfInCoroutine(dispatcher: CoroutineDispatcher, executor: Executor, ops: Int, body: Supplier<Int>): Long =
        runBlocking(dispatcher) {
            var sum = 0L
            repeat(ops) { sum += CompletableFuture.supplyAsync(body, executor).await() }
            sum
        }

    /** kotlinx `async(dispatcher) { body }.await()` from a coroutine on [dispatcher]. */
    @JvmStatic
    fun asyncInCoroutine(dispatcher: CoroutineDispatcher, ops: Int, body: Callable<Int>): Long = runBlocking(dispatcher) {
        var sum = 0L
        repeat(ops) { sum += async(dispatcher) { body.call() }.await() }
        sum
    }
}
