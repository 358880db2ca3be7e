package dev.corobridge.context

import dev.corobridge.bridge.Outcome
import dev.corobridge.bridge.SingleThreadContext
import dev.corobridge.bridge.Task
import dev.corobridge.bridge.task
import io.micrometer.context.ContextRegistry
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.SupervisorJob
import kotlinx.coroutines.ThreadContextElement
import kotlinx.coroutines.async
import kotlinx.coroutines.cancel
import kotlinx.coroutines.withContext
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.Test
import org.slf4j.MDC
import java.time.Duration
import java.util.concurrent.Callable
import java.util.concurrent.CompletableFuture
import java.util.concurrent.TimeUnit
import kotlin.coroutines.CoroutineContext
import kotlin.test.assertEquals
import kotlin.test.assertSame
import kotlin.test.assertTrue

/**
 * A coroutine whose context restore throws (an accessor's `setValue`) fails with that exception at
 * that resume, instead of never resuming; the thread is left clean, and another thread-context
 * element in the same context (Spring's `PropagationContextElement`, here [OtherElement]) is put back
 * as well — kotlinx restores only the elements of a resume whose updates all returned.
 */
class CoroutineContextRestoreFailureTest {
    private val pump = SingleThreadContext("R")
    private val side = SingleThreadContext("S")
    private val scope = CoroutineScope(SupervisorJob())

    companion object {
        private val FLAKY = ThrowingAccessor("test.flaky.kt")
        private val WAIT: Duration = Duration.ofSeconds(30)

        @JvmStatic
        @BeforeAll
        fun register() {
            ContextRegistry.getInstance().registerThreadLocalAccessor(FLAKY)
        }

        @JvmStatic
        @AfterAll
        fun unregister() {
            ContextRegistry.getInstance().removeThreadLocalAccessor(FLAKY.key().toString())
        }
    }

    /** A second thread-context element, as Spring's is: sets [local] at each resume, puts the old value back at each suspension. */
    private class OtherElement(private val value: String) : ThreadContextElement<String?> {
        companion object Key : CoroutineContext.Key<OtherElement>
        val local = ThreadLocal<String>()
        override val key: CoroutineContext.Key<*> get() = Key
        override fun updateThreadContext(context: CoroutineContext): String? = local.get().also { local.set(value) }
        override fun restoreThreadContext(context: CoroutineContext, oldState: String?) =
            if (oldState == null) local.remove() else local.set(oldState)
    }

    @AfterEach
    fun tearDown() {
        FLAKY.stopFailing()
        MDC.clear()
        scope.cancel()
        pump.close()
        side.close()
    }

    private fun failureOf(t: Task<*>): Throwable? = (t.outcomeOrNull() as? Outcome.Failure<*>)?.error()

    /** What the pump thread holds, seen by a plain runnable queued behind the work before it. */
    private fun onPump(other: OtherElement): String {
        val seen = CompletableFuture<String>()
        pump.execute { seen.complete("mdc=${MDC.getCopyOfContextMap()} flaky=${FLAKY.local.get()} other=${other.local.get()}") }
        return seen.get(30, TimeUnit.SECONDS)
    }

    @Test
    fun `a task whose first restore throws fails with that exception and leaves the thread and the other element clean`() {
        val other = OtherElement("other")
        MDC.put("request", "k-1")
        FLAKY.local.set("flaky")
        val refused = IllegalStateException("setValue refused")
        FLAKY.failSet = refused
        val task = scope.task(pump.dispatcher + other) { "the body ran" }
        MDC.clear()
        FLAKY.local.remove()

        val left = onPump(other) // queued behind the task's first dispatch on the one thread
        assertTrue(task.isDone, "the task was not decided by its first resume: $task")
        assertSame(refused, failureOf(task), task.toString())
        assertEquals("mdc=null flaky=null other=null", left)
    }

    @Test
    fun `a restore that throws at a later resume fails the task there`() {
        val other = OtherElement("other")
        val gate = CompletableDeferred<Unit>()
        MDC.put("request", "k-2")
        FLAKY.local.set("flaky")
        var resumedBody = false
        val task = scope.task(pump.dispatcher + other) {
            gate.await()
            resumedBody = true
            "resumed"
        }
        MDC.clear()
        FLAKY.local.remove()
        onPump(other) // the task has started and suspended in gate.await()
        val refused = IllegalStateException("setValue refused at resume")
        FLAKY.failSet = refused
        gate.complete(Unit)

        val left = onPump(other)
        assertTrue(task.isDone, "the task was not decided by its resume: $task")
        assertSame(refused, failureOf(task), task.toString())
        assertTrue(!resumedBody, "the body went on without its context")
        assertEquals("mdc=null flaky=null other=null", left)
    }

    @Test
    fun `PropagatedContext in a plain coroutine fails the coroutine with the restore's exception`() {
        val other = OtherElement("other")
        MDC.put("request", "k-3")
        FLAKY.local.set("flaky")
        val element = PropagatedContext()
        MDC.clear()
        FLAKY.local.remove()
        val refused = IllegalStateException("setValue refused for a plain coroutine")
        FLAKY.failSet = refused
        val deferred = scope.async(pump.dispatcher + other + element) { "the body ran" }

        val left = onPump(other)
        assertTrue(deferred.isCompleted, "the coroutine never resumed")
        @OptIn(kotlinx.coroutines.ExperimentalCoroutinesApi::class)
        assertSame(refused, deferred.getCompletionExceptionOrNull())
        assertEquals("mdc=null flaky=null other=null", left)
    }

    @Test
    fun `a restore that throws when a withContext block starts fails the task, and neither thread keeps anything`() {
        val other = OtherElement("other")
        MDC.put("request", "k-4")
        FLAKY.local.set("flaky")
        val refused = IllegalStateException("setValue refused in a block")
        var blockRan = false
        val task = scope.task(pump.dispatcher + other) {
            FLAKY.failSet = refused // from now on every restore of this task's context throws
            withContext(side.dispatcher) { blockRan = true }
        }
        MDC.clear()
        FLAKY.local.remove()
        val failure = runCatching { task.join(WAIT) }.exceptionOrNull()
        assertTrue(generateSequence(failure) { it.cause }.any { it === refused }, "failed with $failure")
        assertTrue(!blockRan, "the block ran without its context")
        FLAKY.failSet = null
        assertEquals("mdc=null flaky=null other=null", onPump(other))
        assertEquals("null/null/null", Task.start(side, Callable { "${MDC.get("request")}/${FLAKY.local.get()}/${other.local.get()}" }).join(WAIT))
    }

    /**
     * Many coroutine tasks hop between Default and the one-thread context; the restore of every third
     * throws, at its first resume: each task is decided (the refused ones with the refusal), no
     * resume sees another task's values, and the threads end clean.
     */
    @Test
    fun `interleaved coroutine tasks whose restores sometimes throw are each decided and no thread keeps anything`() {
        FLAKY.refusePrefix = "bad"
        val tasks = (0 until 2_000).map { i ->
            val value = (if (i % 3 == 0) "bad-" else "ok-") + i
            MDC.put("request", "k$i")
            FLAKY.local.set(value)
            val expect = "k$i/$value"
            scope.task(kotlinx.coroutines.Dispatchers.Default) {
                val onDefault = seen()
                val onPump = withContext(pump.dispatcher) { seen() }
                check(onDefault == expect && onPump == expect && seen() == expect) { "expected $expect, saw $onDefault, $onPump, ${seen()}" }
                expect
            }
        }
        MDC.clear()
        FLAKY.local.remove()
        tasks.forEachIndexed { i, t ->
            val outcome = runCatching { t.join(WAIT) }
            if (i % 3 == 0) {
                assertEquals("refused bad-$i", outcome.exceptionOrNull()?.message, "task $i: $outcome")
            } else {
                assertEquals("k$i/ok-$i", outcome.getOrThrow())
            }
        }
        FLAKY.refusePrefix = null
        assertEquals("null/null", Task.start(pump, Callable { seen() }).join(WAIT))
        repeat(4) { assertEquals("null/null", Task.start(kotlinx.coroutines.Dispatchers.Default, Callable { seen() }).join(WAIT)) }
    }

    private fun seen() = "${MDC.get("request")}/${FLAKY.local.get()}"
}
