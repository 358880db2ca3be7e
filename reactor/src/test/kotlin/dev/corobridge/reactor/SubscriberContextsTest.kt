package dev.corobridge.reactor

import dev.corobridge.bridge.Tasks
import dev.corobridge.context.ContextPropagation
import io.micrometer.context.ContextRegistry
import io.micrometer.context.ThreadLocalAccessor
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.reactor.mono
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.coroutines.yield
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.Test
import reactor.util.context.Context
import java.time.Duration
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.CountDownLatch
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.atomic.AtomicReference
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertFalse
import kotlin.test.assertNull
import kotlin.test.assertTrue

/**
 * `withSubscriberContext`: a Reactor subscriber's context as a coroutine's thread-bound context, at
 * every step, opened once for the first; every exit (value, error before and after a suspension,
 * cancellation, a refused opening) leaves each thread with its own values.
 */
class SubscriberContextsTest {

    private val worker = Executors.newSingleThreadExecutor { Thread(it, "worker") }
    private val onWorker = worker.asCoroutineDispatcher()

    @AfterEach
    fun tearDown() {
        Tenant.local.remove()
        Tenant.failPutBacks.set(0)
        ContextPropagation.setEnabled(true)
        worker.shutdown()
        assertTrue(worker.awaitTermination(30, TimeUnit.SECONDS))
    }

    /** The worker's own value of the tenant, read by a plain task on it. */
    private fun workerTenant(): String? = worker.submit<String?> { Tenant.local.get() }.get(30, TimeUnit.SECONDS)

    @Test
    fun `the subscriber's values are the block's at every step and on every hop`() {
        val seen = mono {
            withSubscriberContext {
                val first = Tenant.local.get()
                val hop = withContext(onWorker) { Tenant.local.get() }
                yield() // a resume after a dispatch
                "$first/$hop/${Tenant.local.get()}"
            }
        }.contextWrite(Context.of(KEY, "acme")).block(WAIT)
        assertEquals("acme/acme/acme", seen)
        assertNull(Tenant.local.get(), "the subscribing thread keeps its own (empty) value")
        assertNull(workerTenant(), "the worker keeps nothing")
    }

    @Test
    fun `the first step runs inside the one opening of the subscriber's values`() {
        val gate = CompletableDeferred<Unit>()
        val setsAtFirstStep = AtomicReference<Int>()
        val firstStepRan = CountDownLatch(1)
        val setsAfterResume = AtomicReference<Int>()
        val before = Tenant.sets.get()
        val answer = mono(onWorker) { // one thread: what is posted to it next runs after the first step suspended
            withSubscriberContext {
                setsAtFirstStep.set(Tenant.sets.get() - before)
                firstStepRan.countDown()
                gate.await()
                setsAfterResume.set(Tenant.sets.get() - before)
                Tenant.local.get()
            }
        }.contextWrite(Context.of(KEY, "acme")).toFuture()
        // Capturing with ReactorContexts.capture and then restoring would set the value twice here.
        assertTrue(firstStepRan.await(30, TimeUnit.SECONDS), "the first step ran")
        assertEquals(1, setsAtFirstStep.get(), "one opening: the step's restore found the value in place")
        worker.submit { gate.complete(Unit) }.get(30, TimeUnit.SECONDS) // a resume, never a step that did not suspend
        assertEquals("acme", answer.get(30, TimeUnit.SECONDS))
        assertEquals(2, setsAfterResume.get(), "one restore per later step")
    }

    @Test
    fun `the block's failure is the call's, before and after a suspension, and nothing stays behind`() {
        val early = assertFailsWith<IllegalArgumentException> {
            mono<String> { withSubscriberContext { throw IllegalArgumentException("early") } }
                .contextWrite(Context.of(KEY, "acme")).block(WAIT)
        }
        assertEquals("early", early.message)
        val late = assertFailsWith<IllegalStateException> {
            mono<String> {
                withSubscriberContext {
                    withContext(onWorker) { Tenant.local.get() }
                    throw IllegalStateException("late with ${Tenant.local.get()}")
                }
            }.contextWrite(Context.of(KEY, "acme")).block(WAIT)
        }
        assertEquals("late with acme", late.message)
        assertNull(Tenant.local.get())
        assertNull(workerTenant())
    }

    @Test
    fun `cancelling the subscription cancels the block where it waits`() {
        val waiting = CountDownLatch(1)
        val cancelled = CompletableDeferred<String?>()
        val subscription = mono {
            withSubscriberContext {
                try {
                    waiting.countDown()
                    CompletableDeferred<Unit>().await()
                } catch (e: CancellationException) {
                    cancelled.complete(Tenant.local.get()) // the cancelled resume is a step too
                    throw e
                }
            }
        }.contextWrite(Context.of(KEY, "acme")).subscribe()
        assertTrue(waiting.await(30, TimeUnit.SECONDS))
        subscription.dispose()
        assertEquals("acme", runBlocking { cancelled.await() })
        assertNull(Tenant.local.get())
    }

    @Test
    fun `a refused opening fails the call without running the block`() {
        val ran = AtomicInteger()
        val refused = assertFailsWith<IllegalStateException> {
            mono { withSubscriberContext { ran.incrementAndGet() } }
                .contextWrite(Context.of(KEY, REFUSED)).block(WAIT)
        }
        assertEquals("refused", refused.message)
        assertEquals(0, ran.get())
        assertNull(Tenant.local.get())
    }

    @Test
    fun `a failed put-back after the first step is reported and the block's outcome stands`() {
        val reported = CopyOnWriteArrayList<Throwable>()
        val previous = Tasks.setUncaughtFailureHandler { _, e -> reported.add(e) }
        try {
            Tenant.failPutBacks.set(1)
            val seen = mono {
                withSubscriberContext {
                    yield() // the first step suspends: its put-back fails after that
                    Tenant.local.get()
                }
            }.contextWrite(Context.of(KEY, "acme")).block(WAIT)
            assertEquals("acme", seen, "resumed once, with its value")
            assertEquals(listOf("put-back refused"), reported.map { it.message })
            assertNull(Tenant.local.get())
        } finally {
            Tasks.setUncaughtFailureHandler(previous)
        }
    }

    @Test
    fun `without a subscriber's context the calling thread's values are carried`() = runBlocking {
        Tenant.local.set("own")
        try {
            assertEquals("own/own", withSubscriberContext { "${Tenant.local.get()}/${withContext(onWorker) { Tenant.local.get() }}" })
            val empty = mono { withSubscriberContext { withContext(onWorker) { Tenant.local.get() } } }
                .contextWrite(Context.empty()).block(WAIT)
            assertNull(empty, "mono's thread had no value, and the empty Context gave none")
        } finally {
            Tenant.local.remove()
        }
        assertNull(workerTenant())
    }

    @Test
    fun `with propagation off nothing travels`() {
        ContextPropagation.setEnabled(false)
        val sets = Tenant.sets.get()
        val seen = mono { withSubscriberContext { withContext(onWorker) { Tenant.local.get() } ?: "none" } }
            .contextWrite(Context.of(KEY, "acme")).block(WAIT)
        assertEquals("none", seen)
        assertEquals(sets, Tenant.sets.get(), "nothing was opened")
        assertFalse(ContextPropagation.isEnabled())
    }

    /** A registered thread-local that counts its `setValue` calls and refuses [REFUSED]. */
    private object Tenant : ThreadLocalAccessor<String> {
        val local = ThreadLocal<String>()
        val sets = AtomicInteger()

        override fun key(): Any = KEY

        override fun getValue(): String? = local.get()

        override fun setValue(value: String) {
            sets.incrementAndGet()
            check(value != REFUSED) { "refused" }
            local.set(value)
        }

        override fun setValue() = local.remove()

        /** Fails the next [failPutBacks] put-backs of "no value", after clearing it. */
        val failPutBacks = AtomicInteger()

        override fun restore() {
            local.remove()
            check(failPutBacks.getAndUpdate { maxOf(0, it - 1) } == 0) { "put-back refused" }
        }
    }

    companion object {
        private const val KEY = "test.subscriber.tenant"
        private const val REFUSED = "refused"
        private val WAIT = Duration.ofSeconds(30)

        @JvmStatic
        @BeforeAll
        fun register() {
            ContextRegistry.getInstance().registerThreadLocalAccessor(Tenant)
        }

        @JvmStatic
        @AfterAll
        fun unregister() {
            ContextRegistry.getInstance().removeThreadLocalAccessor(KEY)
        }
    }
}
