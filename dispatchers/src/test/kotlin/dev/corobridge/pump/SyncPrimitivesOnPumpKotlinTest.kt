package dev.corobridge.pump

import dev.corobridge.stream.EventSource
import dev.corobridge.stream.asFlow
import dev.corobridge.sync.AsyncChannel
import dev.corobridge.sync.AsyncCondition
import dev.corobridge.sync.AsyncEvent
import dev.corobridge.sync.AsyncLatch
import dev.corobridge.sync.AsyncMutex
import dev.corobridge.sync.AsyncSemaphore
import dev.corobridge.sync.WaitGroup
import dev.corobridge.sync.acquire
import dev.corobridge.sync.await
import dev.corobridge.sync.awaitUntil
import dev.corobridge.sync.receive
import dev.corobridge.sync.send
import dev.corobridge.sync.withLock
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.launch
import kotlinx.coroutines.withContext
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertTrue

/**
 * The Kotlin faces on the pump: a coroutine on the pump that waits suspends without blocking the
 * loop and resumes on the pump, whichever thread released it; the pump's shutdown cancels waiting
 * coroutines without losing what they waited for.
 */
class SyncPrimitivesOnPumpKotlinTest {
    private val ui = MessagePump.start("sync-kt-ui")

    @AfterEach
    fun tearDown() {
        ui.shutdownAndWait()
    }

    /** Waits on the pump with [wait], checks the pump stays free, releases from [Dispatchers.Default]. */
    private suspend fun waitsOnPump(wait: suspend () -> Unit, release: suspend () -> Unit) {
        val waiter = ui.scope.async(start = CoroutineStart.UNDISPATCHED) {
            withContext(ui.dispatcher) {
                wait()
                ui.isCurrentThread
            }
        }
        assertEquals("free", withContext(ui.dispatcher) { "free" }, "the waiting coroutine did not block the pump")
        withContext(Dispatchers.Default) { release() }
        assertTrue(waiter.await(), "resumed on the pump")
    }

    @Test
    fun `every primitive resumes a waiter on the pump`() = pumpTest {
        val mutex = AsyncMutex().apply { tryLock() }
        waitsOnPump({ mutex.withLock { } }, { mutex.unlock() })

        val permits = AsyncSemaphore(1, 1)
        waitsOnPump({ permits.acquire(); permits.release() }, { permits.release() })

        val event = AsyncEvent<Unit>()
        waitsOnPump({ event.await() }, { event.set(Unit) })

        val latch = AsyncLatch(1)
        waitsOnPump({ latch.await() }, { latch.countDown() })

        val group = WaitGroup().apply { add(2) }
        waitsOnPump({ group.await() }, { group.done(); group.done() })

        val channel = AsyncChannel.rendezvous<String>()
        waitsOnPump({ assertEquals("hello", channel.receive()) }, { channel.send("hello") })
        waitsOnPump({ channel.send("back") }, { assertEquals("back", channel.receive()) })

        val lock = AsyncMutex()
        val changed = AsyncCondition(lock)
        var value = 0
        waitsOnPump({ lock.withLock { changed.awaitUntil { value == 1 } } }, {
            lock.withLock {
                value = 1
                changed.signal()
            }
        })
    }

    @Test
    fun `a flow of pump state changes is collected on the pump and unsubscribes when the pump shuts down`() = pumpTest {
        val states = EventSource<String>("pump states")
        val seen = mutableListOf<String>()
        val collecting = CompletableDeferred<Unit>()
        val finallyOnPump = CompletableDeferred<Boolean>()
        ui.scope.launch(start = CoroutineStart.UNDISPATCHED) { // subscribes before it first suspends
            try {
                states.asFlow()
                    .collect {
                        ui.checkAccess()
                        seen += it
                        if (it == "ready") collecting.complete(Unit)
                    }
            } finally {
                finallyOnPump.complete(ui.isCurrentThread)
            }
        }
        assertEquals(1, states.subscriberCount)
        withContext(ui.dispatcher) {
            states.publish("starting") // the pump publishes its own state changes
            states.publish("ready")
        }
        collecting.await()
        assertEquals(listOf("starting", "ready"), withContext(ui.dispatcher) { seen.toList() })
        ui.shutdownAndWait() // phase one cancels the collector while the loop still runs
        assertTrue(finallyOnPump.await(), "its finally ran on the pump")
        assertEquals(0, states.subscriberCount, "unsubscribed when the collection stopped")
        assertTrue(states.publish("after shutdown"), "the source itself lives on")
    }

    @Test
    fun `shutting the pump down cancels a waiting receiver without losing an element`() = pumpTest {
        val channel = AsyncChannel.bounded<Int>(1)
        val started = CompletableDeferred<Unit>()
        ui.scope.launch {
            started.complete(Unit)
            channel.receive() // waits: nothing sent yet
        }
        started.await()
        withContext(ui.dispatcher) { } // the receiver has suspended by now (it ran before this)
        ui.shutdownAndWait()
        channel.send(42)
        assertEquals(42, channel.tryReceive(), "the cancelled receiver took nothing")
        assertFalse(channel.isClosedForSend)
    }
}
