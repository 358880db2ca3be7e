package dev.corobridge.benchmarks

import dev.corobridge.bridge.Task
import dev.corobridge.bridge.await
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.async
import kotlinx.coroutines.future.await
import kotlinx.coroutines.runBlocking
import java.util.concurrent.Callable
import java.util.concurrent.CompletableFuture
import java.util.concurrent.Executor
import java.util.function.Supplier

/** The Kotlin loops of TaskOverheadBenchmark: [ops] start + await, one after another; returns the sum of results. */
object TaskLoad {

    /** kotlinx async/await with the benchmark thread waiting (parked inside runBlocking's event loop). */
    @JvmStatic
    fun asyncFromThread(dispatcher: CoroutineDispatcher, ops: Int, body: Callable<Int>): Long = runBlocking {
        var sum = 0L
        repeat(ops) { sum += async(dispatcher) { body.call() }.await() }
        sum
    }

    /** `Task.start(dispatcher, body)` awaited by suspending, from a coroutine on [dispatcher]. */
    @JvmStatic
    fun taskInCoroutine(dispatcher: CoroutineDispatcher, ops: Int, body: Callable<Int>): Long = runBlocking(dispatcher) {
        var sum = 0L
        repeat(ops) { sum += Task.start(dispatcher, body).await() }
        sum
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
