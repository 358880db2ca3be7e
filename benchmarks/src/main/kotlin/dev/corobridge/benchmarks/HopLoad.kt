package dev.corobridge.benchmarks

import dev.corobridge.bridge.await
import dev.corobridge.bridge.task
import io.netty.channel.DefaultEventLoop
import io.vertx.core.Vertx
import io.vertx.core.VertxOptions
import io.vertx.kotlin.coroutines.dispatcher
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.ExecutorCoroutineDispatcher
import kotlinx.coroutines.async
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import java.util.concurrent.Executor
import java.util.concurrent.ExecutorService
import java.util.concurrent.Executors
import java.util.concurrent.ThreadFactory
import java.util.concurrent.TimeUnit

/**
 * State touched inside every hop, so the hop has an effect nothing can optimise away. Written only
 * inside `withContext(target)`, which every target serialises (one thread, or parallelism 1).
 */
class HopSink(
    /** The thread every hop must run on, or `null` when the target has no thread of its own. */
    @JvmField val owner: Thread?,
) {
    @JvmField var value = 0L
    @JvmField var hops = 0L
    /** Hops that ran on a thread other than [owner]: must stay 0, or the numbers lie. */
    @JvmField var strays = 0L
    /** The context propagation study's check of the hop's thread, or `null` outside the study. */
    @JvmField var check: ContextCheck? = null

    fun touch(i: Int) {
        if (owner != null && Thread.currentThread() !== owner) strays++
        check?.see()
        value = value * 31 + i
        hops++
    }
}

/** The coroutine side of PumpHopBenchmark (kept in Kotlin: JMH needs the benchmark in Java). */
object HopLoad {

    /**
     * Runs [n] coroutines on `Dispatchers.Default`, each doing [tripsEach] round trips
     * `withContext(target) { sink.touch(i) }`, and waits for all. Returns the round trips done.
     */
    @JvmStatic
    fun run(target: CoroutineDispatcher, n: Int, tripsEach: Int, sink: HopSink): Long = runBlocking {
        val workers = List(n) {
            async(Dispatchers.Default) { trips(target, tripsEach, sink) }
        }
        workers.awaitAll().sum()
    }

    /** One coroutine's share: [tripsEach] round trips to [target]; returns how many it made. */
    private suspend fun trips(target: CoroutineDispatcher, tripsEach: Int, sink: HopSink): Long {
        var done = 0L
        for (i in 0 until tripsEach) {
            withContext(target) { sink.touch(i) }
            done++
        }
        return done
    }

    /**
     * [run] with each of the [n] coroutines a corobridge task (`task(Dispatchers.Default) {}` in
     * `runBlocking`, started on the calling thread): each captures the calling thread's context
     * and, while tracing and propagation are on, records and restores it at every resume, on the
     * target and back on `Dispatchers.Default` (the context propagation cost study).
     */
    @JvmStatic
    fun runTasks(target: CoroutineDispatcher, n: Int, tripsEach: Int, sink: HopSink): Long = runBlocking {
        val tasks = List(n) {
            task(Dispatchers.Default) { trips(target, tripsEach, sink) }
        }
        var sum = 0L
        for (t in tasks) sum += t.await()
        sum
    }

    /** `executor.asCoroutineDispatcher()`; its `close()` shuts the executor down. */
    @JvmStatic
    fun executorDispatcher(executor: ExecutorService): ExecutorCoroutineDispatcher = executor.asCoroutineDispatcher()

    /** `executor.asCoroutineDispatcher()` for a plain [Executor]. */
    @JvmStatic
    fun plainDispatcher(executor: Executor): CoroutineDispatcher = executor.asCoroutineDispatcher()

    /** A single-thread executor whose one thread is called [threadName]. */
    @JvmStatic
    fun namedSingleThreadExecutor(threadName: String): ExecutorService =
        Executors.newSingleThreadExecutor { r -> Thread(r, threadName).apply { isDaemon = true } }

    /** A Netty `DefaultEventLoop` whose thread is called [threadName]. */
    @JvmStatic
    fun namedEventLoop(threadName: String): DefaultEventLoop =
        DefaultEventLoop(ThreadFactory { r -> Thread(r, threadName).apply { isDaemon = true } })

    /**
     * A Vert.x 5 instance with one event-loop thread, and the coroutine dispatcher of an event-loop
     * context on it (`Context.dispatcher()` from vertx-lang-kotlin-coroutines).
     */
    @JvmStatic
    fun vertx(): VertxTarget {
        val vertx = Vertx.vertx(VertxOptions().setEventLoopPoolSize(1).setWorkerPoolSize(1).setInternalBlockingPoolSize(1))
        val dispatcher = vertx.getOrCreateContext().dispatcher()
        val thread = runBlocking { withContext(dispatcher) { Thread.currentThread() } }
        return VertxTarget(vertx, dispatcher, thread)
    }

    /** What [vertx] started; [close] closes the Vert.x instance. */
    class VertxTarget(private val vertx: Vertx, val dispatcher: CoroutineDispatcher, val thread: Thread) : AutoCloseable {
        override fun close() {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS)
        }
    }

    /** `Dispatchers.Default.limitedParallelism(1)`: serial, but no thread of its own. */
    @JvmStatic
    fun limitedOne(): CoroutineDispatcher = Dispatchers.Default.limitedParallelism(1)
}
