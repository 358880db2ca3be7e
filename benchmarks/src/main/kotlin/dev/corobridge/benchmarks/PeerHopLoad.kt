package dev.corobridge.benchmarks

import dev.corobridge.context.PropagatedContext
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.slf4j.MDCContext
import kotlinx.coroutines.withContext
import org.springframework.core.PropagationContextElement
import kotlin.coroutines.CoroutineContext
import kotlin.coroutines.EmptyCoroutineContext

/**
 * The coroutine rows of [ContextHopPeersBenchmark]: [n] coroutines on `Dispatchers.Default`, each
 * with the same context elements, doing round trips `withContext(target) { sink.touch(i) }`.
 */
object PeerHopLoad {

    /** No context element: the hop alone. */
    @JvmStatic
    fun bare(): CoroutineContext = EmptyCoroutineContext

    /** corobridge's element, capturing the current thread's MDC and registered thread-locals. */
    @JvmStatic
    fun corobridge(): CoroutineContext = PropagatedContext()

    /**
     * What a Kotlin application without corobridge uses: kotlinx-coroutines-slf4j's `MDCContext`
     * (the MDC) and Spring's `PropagationContextElement` (the registered thread-locals, the
     * observation among them), both capturing the current thread's values.
     */
    @JvmStatic
    fun kotlinxAndSpring(): CoroutineContext = MDCContext() + PropagationContextElement()

    /** Runs the coroutines and waits for all; returns the round trips made. */
    @JvmStatic
    fun run(target: CoroutineDispatcher, context: CoroutineContext, n: Int, tripsEach: Int, sink: HopSink): Long =
        runBlocking {
            val workers = List(n) {
                async(Dispatchers.Default + context) {
                    var done = 0L
                    for (i in 0 until tripsEach) {
                        withContext(target) { sink.touch(i) }
                        done++
                    }
                    done
                }
            }
            workers.awaitAll().sum()
        }
}
