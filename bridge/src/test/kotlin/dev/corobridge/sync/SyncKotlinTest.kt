package dev.corobridge.sync

import dev.corobridge.bridge.await
import dev.corobridge.stream.Next
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.cancel
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.channels.ClosedReceiveChannelException
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import kotlinx.coroutines.withTimeoutOrNull
import kotlinx.coroutines.yield
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import java.util.concurrent.Executors
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertFalse
import kotlin.test.assertIs
import kotlin.test.assertNull
import kotlin.test.assertTrue
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.seconds

/** The Kotlin faces of the sync primitives: suspend instead of block, resume on the caller's dispatcher. */
class SyncKotlinTest {
    private val single = Executors.newSingleThreadExecutor { Thread(it, "kotlin-home") }
    private val home = single.asCoroutineDispatcher()

    @AfterEach
    fun tearDown() {
        home.close()
    }

    private fun test(block: suspend kotlinx.coroutines.CoroutineScope.() -> Unit) = runBlocking<Unit> {
        withTimeout(30.seconds) { block() }
    }

    private fun onHome() = Thread.currentThread().name.startsWith("kotlin-home")

    @Test
    fun `mutex withLock excludes coroutines and resumes waiters on their own dispatcher`() = test {
        val mutex = AsyncMutex()
        var counter = 0
        val resumedAtHome = coroutineScope {
            (1..50).map {
                async(home) {
                    mutex.withLock {
                        val c = counter
                        yield()
                        counter = c + 1
                    }
                    onHome()
                }
            }.awaitAll()
        }
        assertEquals(50, counter)
        assertTrue(resumedAtHome.all { it })
        assertFalse(mutex.isLocked)
    }

    @Test
    fun `mutex lock suspends while held elsewhere and Java unlock hands it over`() = test {
        val mutex = AsyncMutex()
        mutex.lock("java")
        val waiter = async(home) {
            mutex.lock("kotlin")
            onHome() to mutex.holdsLock("kotlin")
        }
        yield()
        Thread({ mutex.unlock("java") }, "unlocker").start()
        assertEquals(true to true, waiter.await())
        assertFailsWith<IllegalStateException> { mutex.lock("kotlin") } // not reentrant: a clear error
        assertFailsWith<IllegalStateException> { mutex.unlock("java") } // not the owner
        mutex.unlock("kotlin")
    }

    @Test
    fun `a cancelled lock never holds the mutex`() = test {
        val mutex = AsyncMutex()
        mutex.lock()
        val waiter = launch(start = CoroutineStart.UNDISPATCHED) { mutex.lock() }
        waiter.cancel()
        waiter.join()
        mutex.unlock()
        assertFalse(mutex.isLocked, "the cancelled waiter did not take it")
    }

    @Test
    fun `semaphore withPermit bounds concurrency`() = test {
        val permits = AsyncSemaphore(2)
        var inside = 0
        var max = 0
        coroutineScope {
            repeat(20) {
                launch(Dispatchers.Default) {
                    permits.withPermit {
                        synchronized(this@SyncKotlinTest) { max = maxOf(max, ++inside) }
                        yield()
                        synchronized(this@SyncKotlinTest) { inside-- }
                    }
                }
            }
        }
        assertTrue(max <= 2, "max $max")
        assertEquals(2, permits.availablePermits)
    }

    @Test
    fun `event latch and wait group resume their waiters at home`() = test {
        val event = AsyncEvent<String>()
        val latch = AsyncLatch(2)
        val group = WaitGroup().apply { add(1) }
        val waiters = listOf(
            async(home) { event.await() + "@" + onHome() },
            async(home) { latch.await(); "latch@" + onHome() },
            async(home) { group.await(); "group@" + onHome() },
        )
        yield()
        Thread({
            event.set("event")
            latch.countDown()
            latch.countDown()
            group.done()
        }, "signaller").start()
        assertEquals(listOf("event@true", "latch@true", "group@true"), waiters.awaitAll())
        assertEquals("event", event.await(), "after set: at once")
        latch.await()
        group.await()
    }

    @Test
    fun `a cancelled event waiter is withdrawn and the others still wake`() = test {
        val event = AsyncEvent<Int>()
        val quitter = launch(start = CoroutineStart.UNDISPATCHED) { event.await() }
        val stayer = async(start = CoroutineStart.UNDISPATCHED) { event.await() }
        quitter.cancel()
        event.set(5)
        assertEquals(5, stayer.await())
        assertTrue(quitter.isCancelled)
        val abandoned = AsyncEvent<Int>().apply { cancel() }
        assertFailsWith<CancellationException> { abandoned.await() }
    }

    @Test
    fun `condition awaitUntil waits releasing the mutex and returns holding it`() = test {
        val mutex = AsyncMutex()
        val ready = AsyncCondition(mutex)
        var value = 0
        val waiter = async(home) {
            mutex.withLock {
                ready.awaitUntil { value == 3 }
                Triple(value, mutex.isLocked, onHome())
            }
        }
        repeat(3) {
            mutex.withLock {
                value++
                ready.signalAll()
            }
            yield()
        }
        assertEquals(Triple(3, true, true), waiter.await())
        assertFalse(mutex.isLocked)
    }

    @Test
    fun `cancelling a condition wait ends it holding the mutex so withLock unlocks`() = test {
        val mutex = AsyncMutex()
        val c = AsyncCondition(mutex)
        val waiter = launch(start = CoroutineStart.UNDISPATCHED) {
            mutex.withLock { c.await() }
        }
        assertFalse(mutex.isLocked, "released while waiting")
        waiter.cancel()
        waiter.join()
        assertFalse(mutex.isLocked, "re-acquired on cancellation, then released by withLock")
        assertFalse(c.signal(), "the withdrawn wait took no signal")
    }

    @Test
    fun `condition wait signalled before it was cancelled returns normally`() = test {
        val mutex = AsyncMutex()
        val c = AsyncCondition(mutex)
        var returnedNormally = false
        val waiter = launch(home, start = CoroutineStart.UNDISPATCHED) {
            mutex.withLock {
                c.await()
                returnedNormally = true
            }
        }
        mutex.withLock {
            assertTrue(c.signal())
            waiter.cancel() // while the woken wait still queues for the mutex we hold
        }
        waiter.join()
        assertTrue(returnedNormally, "the signal was not wasted")
        assertFalse(mutex.isLocked)
    }

    @Test
    fun `channel send and receive suspend and resume at home`() = test {
        val ch = AsyncChannel.rendezvous<String>()
        val receiver = async(home) { ch.receive() + "@" + onHome() }
        yield()
        withContext(Dispatchers.Default) { ch.send("hello") }
        assertEquals("hello@true", receiver.await())
        val sender = async(home) { ch.send("back"); onHome() }
        assertEquals("back", withContext(Dispatchers.Default) { ch.receive() })
        assertTrue(sender.await())
    }

    @Test
    fun `channel closes after draining, as a flow and as next`() = test {
        val ch = AsyncChannel.bounded<Int>(3)
        ch.send(1)
        ch.send(2)
        ch.close()
        assertEquals(listOf(1, 2), ch.receiveAsFlow().toList())
        assertIs<Next.End<Int>>(ch.next())
        assertNull(ch.receiveOrNull())
        assertFailsWith<ClosedReceiveChannelException> { ch.receive() }

        val failed = AsyncChannel.unbounded<Int>()
        failed.close(IllegalStateException("broken"))
        val e = assertFailsWith<IllegalStateException> { failed.receiveAsFlow().toList() }
        assertTrue(generateSequence<Throwable>(e) { it.cause }.any { it.message == "broken" })
    }

    @Test
    fun `a waiting receiveOrNull and next see each end of the channel`() = test {
        val closed = AsyncChannel.rendezvous<Int>()
        val r1 = async(start = CoroutineStart.UNDISPATCHED) { closed.receiveOrNull() }
        val n1 = async(start = CoroutineStart.UNDISPATCHED) { closed.next() }
        closed.close()
        assertNull(r1.await(), "closed: the end")
        assertIs<Next.End<Int>>(n1.await())

        val failed = AsyncChannel.rendezvous<Int>()
        val r2 = async(start = CoroutineStart.UNDISPATCHED) { runCatching { failed.receiveOrNull() } }
        val n2 = async(start = CoroutineStart.UNDISPATCHED) { failed.next() }
        failed.close(IllegalStateException("broken"))
        val e = assertIs<IllegalStateException>(r2.await().exceptionOrNull(), "the close cause is thrown")
        assertTrue(generateSequence<Throwable>(e) { it.cause }.any { it.message == "broken" })
        assertIs<Next.Failed<Int>>(n2.await())

        val cancelled = AsyncChannel.rendezvous<Int>()
        val cancelledWhileSending = AsyncChannel.rendezvous<Int>()
        val r3 = async(start = CoroutineStart.UNDISPATCHED) { cancelled.receiveOrNull() }
        val s3 = async(start = CoroutineStart.UNDISPATCHED) { runCatching { cancelledWhileSending.send(1) } }
        cancelled.cancel()
        cancelledWhileSending.cancel()
        assertNull(r3.await(), "a cancelled channel ends its receivers")
        assertIs<CancellationException>(s3.await().exceptionOrNull(), "and fails its senders")

        val live = AsyncChannel.rendezvous<Int>()
        val r4 = async(start = CoroutineStart.UNDISPATCHED) { live.receiveOrNull() }
        val n4 = async(start = CoroutineStart.UNDISPATCHED) { live.next() }
        live.send(7)
        live.send(8)
        assertEquals(setOf(7, 8), setOf(r4.await(), n4.await().value()))
    }

    @Test
    fun `an element handed to receiveAsFlow as its collection is cancelled reaches the collector`() = test {
        val ch = AsyncChannel.rendezvous<String>()
        val got = mutableListOf<String>()
        val collector = launch(home, start = CoroutineStart.UNDISPATCHED) {
            ch.receiveAsFlow().collect { got += it }
        }
        withContext(home) {
            assertTrue(ch.trySend("handed over")) // taken by the waiting collection on the home thread ...
            collector.cancel()                     // ... which is cancelled before it runs again
        }
        collector.join()
        assertEquals(listOf("handed over"), got, "the element left the channel: it must reach the collector")
        assertFalse(ch.trySend("next"), "and the cancelled collection takes nothing more")
    }

    @Test
    fun `a receiveAsFlow collection cancelled by its collector leaves the rest in the channel`() = test {
        val ch = AsyncChannel.bounded<Int>(3)
        listOf(1, 2, 3).forEach { ch.send(it) }
        val got = mutableListOf<Int>()
        val collector = launch(start = CoroutineStart.UNDISPATCHED) {
            ch.receiveAsFlow().collect {
                got += it
                if (it == 1) coroutineContext.cancel() // never suspends: only the flow sees the cancellation
            }
        }
        collector.join()
        assertEquals(listOf(1), got)
        assertEquals(2, ch.tryReceive(), "the next element was not taken for a collection that had stopped")
        assertEquals(3, ch.tryReceive())
    }

    @Test
    fun `a condition wait whose owner token holds the mutex when it is signalled returns holding it`() = test {
        val mutex = AsyncMutex()
        val c = AsyncCondition(mutex)
        val token = "worker"
        val waiter = async(home, start = CoroutineStart.UNDISPATCHED) {
            mutex.withLock(token) {
                c.await(token)
                mutex.holdsLock(token)
            }
        }
        assertFalse(mutex.isLocked, "released while waiting")
        mutex.lock(token) // another coroutine sharing the token
        assertTrue(c.signal())
        withContext(home) { } // the home thread is idle: the waiter would have resumed by now
        assertFalse(waiter.isCompleted, "it must not return before it holds the mutex again")
        mutex.unlock(token)
        assertTrue(waiter.await(), "returned holding the mutex as its token")
        assertFalse(mutex.isLocked, "its withLock released its own hold, nobody else's")
    }

    @Test
    fun `a cancelled receive takes nothing and a matched one returns its element`() = test {
        val ch = AsyncChannel.rendezvous<String>()
        val withdrawn = launch(start = CoroutineStart.UNDISPATCHED) { ch.receive() }
        withdrawn.cancel()
        withdrawn.join()
        assertFalse(ch.trySend("x"), "the cancelled receiver is gone")

        var got: String? = null
        val matched = launch(home, start = CoroutineStart.UNDISPATCHED) { got = ch.receive() }
        withContext(home) {
            assertTrue(ch.trySend("kept")) // hands the element over on the home thread ...
            matched.cancel()                // ... and cancels before the receiver runs again
        }
        matched.join()
        assertEquals("kept", got, "plain kotlinx would drop it here; this face delivers it")
    }

    @Test
    fun `a receive under withTimeout that times out takes nothing`() = test {
        val ch = AsyncChannel.bounded<String>(1)
        assertNull(withTimeoutOrNull(20.milliseconds) { ch.receive() })
        ch.send("still here")
        assertEquals("still here", ch.tryReceive(), "the timed-out receive was withdrawn")
        val mutex = AsyncMutex().apply { tryLock() }
        assertNull(withTimeoutOrNull(20.milliseconds) { mutex.lock() })
        mutex.unlock()
        assertFalse(mutex.isLocked, "the timed-out lock never took the mutex")
    }

    @Test
    fun `control - in the same race a plain kotlinx receive drops the element`() = test {
        val ch = kotlinx.coroutines.channels.Channel<String>()
        var got: String? = null
        val matched = launch(home, start = CoroutineStart.UNDISPATCHED) { got = ch.receive() }
        withContext(home) {
            assertTrue(ch.trySend("dropped").isSuccess)
            matched.cancel()
        }
        matched.join()
        assertNull(got, "kotlinx's prompt cancellation: the element was taken from the channel and lost")
        assertTrue(ch.tryReceive().isFailure, "and it is not in the channel either")
    }
}
