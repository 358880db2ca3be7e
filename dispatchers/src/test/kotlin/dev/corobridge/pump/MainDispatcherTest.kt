package dev.corobridge.pump

import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.ExecutorCoroutineDispatcher
import kotlinx.coroutines.ExperimentalCoroutinesApi
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.test.StandardTestDispatcher
import kotlinx.coroutines.test.TestCoroutineScheduler
import kotlinx.coroutines.test.resetMain
import kotlinx.coroutines.test.runTest
import kotlinx.coroutines.test.setMain
import kotlinx.coroutines.withContext
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import java.util.concurrent.Executors
import kotlin.test.assertContains
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertFalse
import kotlin.test.assertNotSame
import kotlin.test.assertNull
import kotlin.test.assertSame
import kotlin.test.assertTrue

/**
 * `Dispatchers.Main` backed by a pump through [MainPump] and [dev.corobridge.pump.internal.PumpMainDispatcherFactory].
 *
 * kotlinx-coroutines-test is on the test class path, so `Dispatchers.Main` here is kotlinx's
 * `TestMainDispatcher` (its factory has the highest priority); it delegates to the next-best factory
 * (ours) unless `Dispatchers.setMain` was called. These tests check that chain end to end.
 */
@OptIn(ExperimentalCoroutinesApi::class)
class MainDispatcherTest {
    private val pump = MessagePump.start("main-ui")
    private val pumpThread: Thread = pump.thread

    @BeforeEach
    fun noPumpInstalled() {
        assertNull(MainPump.current(), "a previous test left a pump installed")
    }

    @AfterEach
    fun tearDown() {
        Dispatchers.resetMain()
        MainPump.uninstall(pump)
        pump.shutdownAndWait()
    }

    @Test
    fun `without an installed pump Dispatchers Main fails and names MainPump install`() = pumpTest {
        assertNull(MainPump.current())
        val ran = java.util.concurrent.atomic.AtomicBoolean()
        val e = assertFailsWith<IllegalStateException> {
            withContext(Dispatchers.Main) { ran.set(true) }
        }
        assertContains(e.message.orEmpty(), "MainPump.install", message = "${e.javaClass.name}: ${e.message}")
        assertFalse(ran.get())
        // The immediate view is obtainable (it is only a view), but using it fails the same way.
        val e2 = assertFailsWith<IllegalStateException> {
            withContext(Dispatchers.Main.immediate) { ran.set(true) }
        }
        assertContains(e2.message.orEmpty(), "MainPump.install")
        assertFalse(ran.get())
    }

    @Test
    fun `after MainPump install, Dispatchers Main runs on the pump`() = pumpTest {
        assertNull(MainPump.install(pump))
        assertSame(pump, MainPump.current())
        val caller = Thread.currentThread()
        val t = withContext(Dispatchers.Main) {
            assertTrue(pump.isCurrentThread)
            // Main is not immediate: launch queues behind the running coroutine.
            val order = mutableListOf(1)
            val child = launch(Dispatchers.Main) { order += 3 }
            order += 2
            child.join()
            assertEquals(listOf(1, 2, 3), order)
            // Main.immediate on the pump thread runs inline.
            order.clear()
            order += 1
            val inline = launch(Dispatchers.Main.immediate) { order += 2 }
            order += 3
            inline.join()
            assertEquals(listOf(1, 2, 3), order)
            // delay on Main uses the pump's timers and resumes on the pump.
            delay(5)
            assertTrue(pump.isCurrentThread)
            Thread.currentThread()
        }
        assertSame(pumpThread, t)
        assertSame(caller, Thread.currentThread())
        // Main.immediate from off the pump dispatches to the pump.
        val viaImmediate = withContext(Dispatchers.Default) {
            withContext(Dispatchers.Main.immediate) { Thread.currentThread() }
        }
        assertSame(pumpThread, viaImmediate)
    }

    @Test
    fun `the installed pump can be replaced and uninstalled`() = pumpTest {
        val second = MessagePump.start("main-ui-2")
        try {
            MainPump.install(pump)
            assertSame(pumpThread, withContext(Dispatchers.Main) { Thread.currentThread() })
            assertSame(pump, MainPump.install(second))
            assertSame(second.thread, withContext(Dispatchers.Main) { Thread.currentThread() })
            assertFalse(MainPump.uninstall(pump), "only the installed pump can be uninstalled")
            assertTrue(MainPump.uninstall(second))
            assertNull(MainPump.current())
            assertFailsWith<IllegalStateException> { withContext(Dispatchers.Main) { } }
        } finally {
            MainPump.uninstall(second)
            second.shutdownAndWait()
        }
    }

    @Test
    fun `Dispatchers setMain wins over the pump until resetMain`() {
        MainPump.install(pump)
        val other: ExecutorCoroutineDispatcher =
            Executors.newSingleThreadExecutor { r -> Thread(r, "other-main").apply { isDaemon = true } }
                .asCoroutineDispatcher()
        try {
            Dispatchers.setMain(other)
            pumpTest {
                val t = withContext(Dispatchers.Main) { Thread.currentThread() }
                assertTrue(t.name.startsWith("other-main"), t.name)
                assertNotSame(pumpThread, t)
            }
            Dispatchers.resetMain()
            pumpTest {
                assertSame(pumpThread, withContext(Dispatchers.Main) { Thread.currentThread() })
            }
        } finally {
            other.close()
        }
    }

    @Test
    fun `a StandardTestDispatcher set as Main wins over the pump inside runTest`() {
        MainPump.install(pump)
        val scheduler = TestCoroutineScheduler()
        Dispatchers.setMain(StandardTestDispatcher(scheduler))
        runTest {
            val testThread = Thread.currentThread()
            var ranAt = -1L
            val job = launch(Dispatchers.Main) {
                delay(10_000) // virtual time of the test scheduler, not the pump's timers
                ranAt = testScheduler.currentTime
            }
            testScheduler.advanceUntilIdle()
            assertTrue(job.isCompleted)
            assertEquals(10_000, ranAt)
            assertSame(testScheduler, scheduler, "runTest picked up Main's scheduler")
            assertSame(testThread, withContext(Dispatchers.Main) { Thread.currentThread() })
            assertFalse(pump.isCurrentThread)
        }
        assertEquals(0, pump.metrics.pendingTimers())
        Dispatchers.resetMain()
        pumpTest {
            assertSame(pumpThread, withContext(Dispatchers.Main) { Thread.currentThread() })
        }
    }
}
