package dev.corobridge.bridge

import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineName
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.ExperimentalCoroutinesApi
import kotlinx.coroutines.SupervisorJob
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.future.await
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.isActive
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import kotlinx.coroutines.yield
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import java.util.concurrent.CompletableFuture
import java.util.concurrent.Executors
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertFalse
import kotlin.test.assertSame
import kotlin.test.assertTrue

/** The Kotlin face: awaiting Java awaitables, handing coroutines to Java as Tasks, conversions. */
class TaskKotlinTest {
    private val single = Executors.newSingleThreadExecutor { Thread(it, "kotlin-home") }
    private val home = single.asCoroutineDispatcher()

    @AfterEach
    fun tearDown() {
        home.close()
    }

    @Test
    fun `await a Java Promise completed on another thread resumes on the awaiter's dispatcher`() = runBlocking<Unit> {
        val promise = Promise<String>()
        val result = withContext(home) {
            Thread({ promise.complete("from another thread") }, "completer").start()
            val v = promise.await()
            v to Thread.currentThread().name
        }
        assertEquals("from another thread", result.first)
        assertTrue(result.second.startsWith("kotlin-home"), result.second)
    }

    @Test
    fun `await a Task failure rethrows the original exception`() = runBlocking<Unit> {
        val task = Task.start(Dispatchers.Default) { throw IllegalArgumentException("bad") }
        val e = assertFailsWith<IllegalArgumentException> { withContext(home) { task.await() } }
        assertEquals("bad", e.message)
        // kotlinx debug mode may rethrow a copy whose cause is the original: look along the chain.
        assertTrue(generateSequence<Throwable>(e) { it.cause }.any { t -> t.suppressed.any { it is HopTraceException } }, "hop trace attached")
        val done = Task.failed<String>(IllegalStateException("already"))
        assertFailsWith<IllegalStateException> { done.await() }
        val cancelled = Task.failed<String>(CancellationException("c"))
        assertFailsWith<CancellationException> { cancelled.await() }
    }

    /**
     * A Java task whose body joined another task that failed with a checked exception fails with
     * join()'s CompletionException; a Kotlin awaiter gets the failure itself, as kotlinx's await of
     * a CompletableFuture does (it got the Java wrapper, which a `catch (e: IOException)` misses).
     */
    @Test
    fun `await a task whose body joined a failed task throws the failure itself, as await of a future does`() = runBlocking<Unit> {
        val inner = Task.start(Dispatchers.Default) { throw java.io.IOException("disk gone") }
        val outer = Task.startVirtual { inner.join() }
        val e = assertFailsWith<java.io.IOException> { outer.await() }
        assertEquals("disk gone", generateSequence<Throwable>(e) { it.cause }.last().message)
        val future = CompletableFuture.supplyAsync { inner.join() }
        assertFailsWith<java.io.IOException> { future.await() }
    }

    @Test
    fun `two coroutines awaiting one failed task get their own traces and leave the original alone`() = runBlocking<Unit> {
        val original = IllegalArgumentException("shared")
        val release = CompletableFuture<Unit>()
        val task = Task.start(Dispatchers.Default) { release.join(); throw original }
        val started = CompletableDeferred<Unit>()
        // One awaiter starts waiting before the failure (usually suspending), one awaits the failed task.
        val early = async(home) { runCatching { started.complete(Unit); task.await() }.exceptionOrNull() }
        started.await()
        release.complete(Unit)
        val first = early.await()!!
        val second = withContext(home) { runCatching { task.await() }.exceptionOrNull()!! }
        for (e in listOf(first, second)) {
            assertTrue(e is IllegalArgumentException, "$e")
            assertEquals("shared", e.message)
        }
        val firstTraces = hopTraces(first)
        val secondTraces = hopTraces(second)
        assertEquals(1, firstTraces.size, "$first")
        assertEquals(1, secondTraces.size, "$second")
        assertTrue(firstTraces[0] !== secondTraces[0], "each awaiter has a trace of its own")
        assertEquals(0, original.suppressed.size, "the task's exception must not be changed")
        assertTrue(generateSequence<Throwable>(first) { it.cause }.any { it === original }, "the original is the cause")
    }

    /** Hop traces attached along the cause chain (kotlinx's debug mode may add a copy in front). */
    private fun hopTraces(e: Throwable): List<Throwable> =
        generateSequence(e) { it.cause }.flatMap { it.suppressed.asSequence() }.filter { it is HopTraceException }.toList()

    @Test
    fun `cancelling an awaiter leaves the task alone`() = runBlocking<Unit> {
        val shared = Promise<Int>()
        val awaiter = launch(home) { shared.await() }
        yield()
        awaiter.cancel()
        awaiter.join()
        assertFalse(shared.isDone, "the shared task was not cancelled by its awaiter")
        shared.complete(7)
        assertEquals(7, shared.await())
    }

    @Test
    fun `task builder names its task after the CoroutineName, else the dispatcher, never the empty context`() = runBlocking<Unit> {
        val named = task(Dispatchers.Default + CoroutineName("load-board")) { 1 }
        assertTrue(named.toString().startsWith("Task[load-board,"), named.toString())
        val onDispatcher = task(Dispatchers.Default) { 2 }
        assertTrue(onDispatcher.toString().startsWith("Task[Dispatchers.Default,"), onDispatcher.toString())
        // No context given: the scope's own name, else its dispatcher (runBlocking's event loop).
        val inNamedScope = CoroutineScope(home + CoroutineName("board-scope")).task { 3 }
        assertTrue(inNamedScope.toString().startsWith("Task[board-scope,"), inNamedScope.toString())
        val plain = task { 4 }
        assertFalse(plain.toString().contains("EmptyCoroutineContext"), plain.toString())
        assertTrue(plain.toString().contains("BlockingEventLoop"), plain.toString())
        assertEquals(listOf(1, 2, 3, 4), listOf(named.await(), onDispatcher.await(), inNamedScope.await(), plain.await()))
        // Every exit of the task follows the coroutine: value (above), failure, cancellation.
        val failing = CoroutineScope(SupervisorJob() + home).task<Int>(CoroutineName("failing")) { throw IllegalStateException("no") }
        assertEquals("no", assertFailsWith<IllegalStateException> { failing.await() }.message)
        assertTrue(failing.outcomeOrNull() is Outcome.Failure)
    }

    @Test
    fun `task builder hands a coroutine to Java and cancellation flows both ways`() = runBlocking<Unit> {
        val t: Task<Int> = task(Dispatchers.Default) { 40 + 2 }
        assertEquals(42, t.await())

        val started = CompletableDeferred<Unit>()
        val longRunning = task(home) {
            started.complete(Unit)
            awaitCancellation()
        }
        started.await()
        longRunning.cancel()
        assertTrue(longRunning.outcomeOrNull()!!.isCancelled)

        // Cancelling the Kotlin Job cancels the Task.
        val deferred = async(home, start = CoroutineStart.DEFAULT) { awaitCancellation() }
        val from = deferred.asTask()
        deferred.cancel()
        assertFailsWith<CancellationException> { from.await() }
        assertTrue(from.outcomeOrNull()!!.isCancelled)

        // Cancelling the Task cancels the Deferred.
        val d2 = async(home) { awaitCancellation() }
        val t2 = Task.from(d2)
        t2.cancel()
        d2.join()
        assertTrue(d2.isCancelled)
    }

    /**
     * The coroutine behind a task is cancelled with the task's cancellation: the cause given to
     * `cancel(cause)`, the timeout of `withTimeout` (a cancellation caused by the
     * [TaskTimeoutException]), and a cause given to a stage that owns the task (a `withTimeout`
     * result, a `thenComposeOn` result). It saw a bare `JobCancellationException` instead.
     */
    @Test
    fun `the coroutine behind a task is cancelled with the task's cause`() = runBlocking<Unit> {
        suspend fun seenBy(cancel: (Task<Unit>) -> Unit): Throwable {
            val started = CompletableDeferred<Unit>()
            val seen = CompletableDeferred<Throwable>()
            val work: Task<Unit> = task(Dispatchers.Default) {
                try {
                    started.complete(Unit)
                    awaitCancellation()
                } catch (e: CancellationException) {
                    seen.complete(e)
                    throw e
                }
            }
            started.await()
            cancel(work)
            return withTimeout(10_000) { seen.await() }
        }
        // kotlinx's stack-trace recovery (on in tests) may rethrow a copy with the original as its cause.
        fun Throwable.chain() = generateSequence(this) { it.cause }.toList()
        fun assertCausedBy(expected: Throwable, seen: Throwable, what: String) =
            assertTrue(seen.chain().any { it === expected }, "$what: the coroutine saw $seen")

        val why = java.util.concurrent.CancellationException("user pressed stop")
        assertCausedBy(why, seenBy { it.cancel(why) }, "cancel(cause)")

        val timedOut = seenBy { it.withTimeout(java.time.Duration.ofMillis(1)) }
        assertTrue(timedOut.chain().any { it is TaskTimeoutException }, "withTimeout: $timedOut")

        val stop = java.util.concurrent.CancellationException("the limited task was cancelled")
        assertCausedBy(stop, seenBy { it.withTimeout(java.time.Duration.ofDays(1)).cancel(stop) }, "a withTimeout result's cancel(cause)")

        val composedStop = java.util.concurrent.CancellationException("the composed task was cancelled")
        val composed = seenBy { work ->
            val composedTask = Task.completed(1).thenComposeOn(Runnable::run) { work }
            assertTrue(composedTask.cancel(composedStop))
        }
        assertCausedBy(composedStop, composed, "a thenComposeOn result's cancel(cause)")
    }

    /**
     * A lazily started task starts as a lazy `async` does: when it is first awaited (or joined, or
     * something registers on it), not before; cancelled first, it never runs. Its `await()` never
     * returned: nothing started the lazy coroutine.
     */
    @Test
    fun `a lazy task starts when it is first awaited`() = runBlocking<Unit> {
        val runs = java.util.concurrent.atomic.AtomicInteger()
        val awaited = task(Dispatchers.Default, CoroutineStart.LAZY) { runs.incrementAndGet(); 5 }
        kotlinx.coroutines.delay(50)
        assertEquals(0, runs.get(), "not started before anything waits")
        assertFalse(awaited.isDone)
        assertEquals(5, withTimeout(10_000) { awaited.await() })

        val joined = task(Dispatchers.Default, CoroutineStart.LAZY) { runs.incrementAndGet(); 6 }
        assertEquals(6, withContext(Dispatchers.IO) { joined.join(java.time.Duration.ofSeconds(10)) })

        val chained = task(Dispatchers.Default, CoroutineStart.LAZY) { runs.incrementAndGet(); 7 }
        assertEquals(8, withTimeout(10_000) { chained.thenOn(Dispatchers.Default) { it + 1 }.await() })
        assertEquals(3, runs.get())

        val cancelled = task(Dispatchers.Default, CoroutineStart.LAZY) { runs.incrementAndGet(); 9 }
        assertTrue(cancelled.cancel())
        assertFailsWith<CancellationException> { withTimeout(10_000) { cancelled.await() } }
        assertEquals(3, runs.get(), "a lazy task cancelled before it started never runs")

        // The other starts are unchanged.
        assertEquals(1, task(Dispatchers.Default, CoroutineStart.UNDISPATCHED) { 1 }.await())
        assertEquals(2, task(Dispatchers.Default, CoroutineStart.ATOMIC) { 2 }.await())
    }

    @Test
    fun `structured task is a child of its scope`() = runBlocking<Unit> {
        val failure = runCatching {
            coroutineScope {
                val child = task(Dispatchers.Default) { awaitCancellation() }
                launch { throw IllegalStateException("sibling failed") }
                child.await()
            }
        }.exceptionOrNull()
        assertTrue(failure is IllegalStateException, "$failure")
    }

    @Test
    fun `asDeferred converts and cancels both ways`() = runBlocking<Unit> {
        val p = Promise<String>()
        val d = p.asDeferred()
        p.complete("v")
        assertEquals("v", d.await())
        val p2 = Promise<String>()
        val d2 = p2.asDeferred()
        d2.cancel()
        assertTrue(p2.outcomeOrNull()!!.isCancelled)
        val p3 = Promise<String>()
        val d3 = p3.asDeferred()
        p3.fail(IllegalStateException("x"))
        assertFailsWith<IllegalStateException> { d3.await() }
    }

    @Test
    fun `startSuspend reads as a suspend lambda from Kotlin`() = runBlocking<Unit> {
        // Kotlin sees SuspendCall as a suspending functional interface.
        val t: Task<String> = Task.startSuspend(home) { KotlinHelpers.loadUser("7") }
        val v = t.await()
        assertTrue(v.startsWith("user-7@kotlin-home"), v)
        val failing: Task<String> = Task.startSuspend(home) { KotlinHelpers.failAfterSuspending("nope") }
        assertEquals("nope", assertFailsWith<IllegalStateException> { failing.await() }.message)
        val forever: Task<String> = Task.startSuspend(Dispatchers.Default) {
            KotlinHelpers.suspendForever(java.util.concurrent.CountDownLatch(1))
        }
        assertFailsWith<kotlinx.coroutines.TimeoutCancellationException> { withTimeout(50) { forever.await() } }
        assertFalse(forever.isDone, "timing out the awaiter leaves the task running")
        forever.cancel()
    }

    @Test
    fun `awaiting a timed-out task fails the awaiter with TaskTimeoutException, it does not cancel it`() = runBlocking<Unit> {
        val work = CompletableDeferred<String>()
        val limited = work.asTask().withTimeout(java.time.Duration.ofMillis(20))
        // Not a child of runBlocking: its failure must reach the test, not cancel the test.
        val awaiter = async(SupervisorJob()) { limited.await() }
        val e = assertFailsWith<TaskTimeoutException> { awaiter.await() }
        assertEquals(java.time.Duration.ofMillis(20), e.limit())
        @OptIn(ExperimentalCoroutinesApi::class)
        val end = awaiter.getCompletionExceptionOrNull()
        assertTrue(end is TaskTimeoutException && end !is java.util.concurrent.CancellationException,
            "the awaiting coroutine failed with the timeout; it was not silently cancelled: $end")
        assertTrue(work.isCancelled, "withTimeout cancels the work it limits")
        assertTrue(isActive, "someone else's timeout does not cancel this coroutine")
    }

    @OptIn(ExperimentalCoroutinesApi::class)
    @Test
    fun `CompletableFuture view`() = runBlocking<Unit> {
        val t = Task.from(CompletableFuture.completedFuture("cf"))
        assertEquals("cf", t.toCompletableFuture().get())
        assertSame(t, t)
    }
}
