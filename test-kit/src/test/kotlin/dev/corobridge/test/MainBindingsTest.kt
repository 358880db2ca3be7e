package dev.corobridge.test

import dev.corobridge.pump.ManualPump
import kotlinx.coroutines.Job
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.job
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import java.util.concurrent.CompletableFuture
import java.util.concurrent.TimeUnit
import kotlin.coroutines.EmptyCoroutineContext
import kotlin.test.assertEquals
import kotlin.test.assertNull
import kotlin.test.assertSame

/** How [MainBindings] decides whose pump a dispatch on `Dispatchers.Main` goes to. */
class MainBindingsTest {
    private val pumps = mutableListOf<ManualPump>()
    private val bindings = mutableListOf<MainBinding>()

    @AfterEach
    fun tearDown() {
        bindings.asReversed().forEach { it.close() }
        for (p in pumps) {
            p.shutdownNow()
            p.runUntilIdle()
        }
    }

    private fun bind(name: String): MainBinding {
        val pump = ManualPump.create(name).also { pumps += it }
        return MainBindings.open(pump).also { bindings += it }
    }

    private fun <T> onOtherThread(body: () -> T): T {
        val result = CompletableFuture<T>()
        Thread({ runCatching(body).fold(result::complete, result::completeExceptionally) }, "other").start()
        return result.get(60, TimeUnit.SECONDS)
    }

    @Test
    fun `the binding of the thread decides, and a job seen under it keeps it on any thread`() {
        val a = bind("a")
        val job = Job()
        assertSame(a, MainBindings.resolve(job))
        assertSame(a, onOtherThread { MainBindings.resolve(job) })
        assertNull(onOtherThread { MainBindings.resolve(Job()) }, "an unknown job on an unbound thread")
        assertNull(onOtherThread { MainBindings.resolve(EmptyCoroutineContext) })
        job.cancel()
    }

    @Test
    fun `a child job belongs where its nearest registered ancestor does`() {
        val a = bind("a")
        val parent = Job()
        MainBindings.resolve(parent)
        val grandChild = Job(Job(parent))
        assertSame(a, onOtherThread { MainBindings.resolve(grandChild) })
        parent.cancel()
    }

    @Test
    fun `the pump's scope is its binding's from any thread while the binding is open`() {
        val a = bind("a")
        val scopeChild = Job(a.pump.scope.coroutineContext.job)
        assertSame(a, onOtherThread { MainBindings.resolve(scopeChild) })
        a.close()
        assertNull(onOtherThread { MainBindings.resolve(Job(a.pump.scope.coroutineContext.job)) })
        scopeChild.cancel()
    }

    @Test
    fun `NonCancellable is nobody's and the thread decides`() {
        val a = bind("a")
        assertSame(a, MainBindings.resolve(NonCancellable))
        assertNull(onOtherThread { MainBindings.resolve(NonCancellable) })
    }

    @Test
    fun `a nested binding hides the outer one until it closes`() {
        val outer = bind("outer")
        val inner = bind("inner")
        assertSame(inner, MainBindings.current())
        inner.close()
        assertSame(outer, MainBindings.current())
        outer.close()
        assertNull(MainBindings.current())
    }

    @Test
    fun `a closed binding stops claiming its thread but keeps the coroutines it claimed`() {
        val first = bind("first")
        val job = Job()
        assertSame(first, MainBindings.resolve(job))
        first.close()
        val second = bind("second")
        assertSame(first, MainBindings.resolve(job), "a leftover of the first test never runs on the second's pump")
        assertSame(second, MainBindings.resolve(Job()))
        job.cancel()
    }

    @Test
    fun `live coroutines are reported by their outermost live job, outside the pump's scope`() {
        val a = bind("a")
        val root = Job()
        val child = Job(root)
        val inScope = Job(a.pump.scope.coroutineContext.job)
        val done = Job()
        for (j in listOf(root, child, inScope, done)) MainBindings.resolve(j)
        done.complete()
        assertEquals(listOf<Job>(root), MainBindings.liveCoroutines(a))
        root.cancel()
        inScope.cancel()
        assertEquals(emptyList(), MainBindings.liveCoroutines(a))
    }
}
