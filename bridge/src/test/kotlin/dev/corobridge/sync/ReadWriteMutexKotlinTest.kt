package dev.corobridge.sync

import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import kotlinx.coroutines.withTimeoutOrNull
import kotlinx.coroutines.yield
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import java.util.SplittableRandom
import java.util.concurrent.CountDownLatch
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.atomic.AtomicLong
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertNotNull
import kotlin.test.assertNull
import kotlin.test.assertTrue
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.seconds

/**
 * The Kotlin face of [AsyncReadWriteMutex]: `withReadLock {}` / `withWriteLock {}` share and
 * exclude, resume on the caller's dispatcher, and never hold or leak the lock when the coroutine
 * is cancelled — while it waits, while it holds, or in the instant between the grant and its
 * resumption.
 */
class ReadWriteMutexKotlinTest {
    private val single = Executors.newSingleThreadExecutor { Thread(it, "kotlin-home") }
    private val home = single.asCoroutineDispatcher()

    @AfterEach
    fun tearDown() {
        home.close()
    }

    private fun test(block: suspend kotlinx.coroutines.CoroutineScope.() -> Unit) = runBlocking<Unit> {
        withTimeout(60.seconds) { block() }
    }

    private fun onHome() = Thread.currentThread().name.startsWith("kotlin-home")

    private fun AsyncReadWriteMutex.assertFreeAndIdle() {
        assertFalse(isLocked, "unlocked: $this")
        assertFalse(hasWaiters(), "nothing queued: $this")
    }

    @Test
    fun `readers share the lock and writers hold it alone`() = test {
        val rw = AsyncReadWriteMutex()
        val bothInside = CompletableDeferred<Unit>()
        val inside = AtomicInteger()
        // Two readers inside at once: each waits, holding its read lock, until both are in.
        (1..2).map {
            async(Dispatchers.Default) {
                rw.withReadLock {
                    if (inside.incrementAndGet() == 2) bothInside.complete(Unit)
                    bothInside.await()
                }
            }
        }.awaitAll()

        val writersInside = AtomicInteger()
        val readersInside = AtomicInteger()
        var counter = 0
        coroutineScope {
            repeat(40) { i ->
                launch(Dispatchers.Default) {
                    if (i % 4 == 0) {
                        rw.withWriteLock {
                            assertEquals(1, writersInside.incrementAndGet())
                            assertEquals(0, readersInside.get())
                            val c = counter
                            yield()
                            counter = c + 1
                            writersInside.decrementAndGet()
                        }
                    } else {
                        rw.withReadLock {
                            readersInside.incrementAndGet()
                            assertEquals(0, writersInside.get())
                            yield()
                            readersInside.decrementAndGet()
                        }
                    }
                }
            }
        }
        assertEquals(10, counter)
        rw.assertFreeAndIdle()
    }

    @Test
    fun `a waiter resumes on its own dispatcher when a Java holder releases`() = test {
        val rw = AsyncReadWriteMutex()
        val java = rw.tryWriteLock()
        assertNotNull(java)
        // Started here, undispatched: both are queued when launch returns; they resume on home.
        val reader = async(home, start = CoroutineStart.UNDISPATCHED) { rw.withReadLock { onHome() to rw.getReaders() } }
        val writer = async(home, start = CoroutineStart.UNDISPATCHED) { rw.withWriteLock { onHome() } }
        assertEquals(1, rw.getQueuedReaders())
        assertEquals(1, rw.getQueuedWriters())
        Thread({ java.unlock() }, "releaser").start()
        assertEquals(true to 1, reader.await())
        assertTrue(writer.await())
        rw.assertFreeAndIdle()
    }

    @Test
    fun `a coroutine cancelled while it waits never holds the lock`() = test {
        val rw = AsyncReadWriteMutex()
        val java = rw.tryWriteLock()!!
        var ran = false
        val reader = launch(start = CoroutineStart.UNDISPATCHED) { rw.withReadLock { ran = true } }
        val writer = launch(start = CoroutineStart.UNDISPATCHED) { rw.withWriteLock { ran = true } }
        assertEquals(1, rw.getQueuedReaders())
        assertEquals(1, rw.getQueuedWriters())
        reader.cancel()
        writer.cancel()
        reader.join()
        writer.join()
        assertFalse(rw.hasWaiters(), "withdrawn: $rw")
        java.unlock()
        assertFalse(ran)
        rw.assertFreeAndIdle()
    }

    /**
     * A coroutine that is cancelled already when it asks (a lock taken in the `finally` of a
     * cancelled coroutine, without `NonCancellable`) throws at once and leaves nothing queued, with
     * each of the four ways to ask. Its request used to stay queued: the cancellation handler ran
     * before the request was queued, found nothing to withdraw, and the dead request then kept the
     * readers behind it waiting until the lock was granted to it and passed on.
     */
    @Test
    fun `a coroutine cancelled before it asks leaves nothing queued`() = test {
        val asks: List<Pair<String, suspend (AsyncReadWriteMutex) -> Unit>> = listOf(
            "withWriteLock" to { rw -> rw.withWriteLock { } },
            "writeLock" to { rw -> rw.writeLock().unlock() },
            "withReadLock" to { rw -> rw.withReadLock { } },
            "readLock" to { rw -> rw.readLock().unlock() },
        )
        for ((name, ask) in asks) {
            val rw = AsyncReadWriteMutex()
            val held = if (name.contains("Write")) rw.tryReadLock()!! else rw.tryWriteLock()!!
            var asked: Throwable? = null
            launch(Dispatchers.Default) {
                kotlinx.coroutines.currentCoroutineContext()[kotlinx.coroutines.Job]!!.cancel()
                asked = runCatching { ask(rw) }.exceptionOrNull()
            }.join()
            assertTrue(asked is kotlinx.coroutines.CancellationException, "$name: threw $asked")
            assertFalse(rw.hasWaiters(), "$name: nothing queued: $rw")
            if (name.contains("Write")) {
                val reader = assertNotNull(rw.tryReadLock(), "$name: a reader gets in beside the other reader: $rw")
                reader.unlock()
            }
            held.close()
            rw.assertFreeAndIdle()
        }
    }

    @Test
    fun `a coroutine cancelled while it holds the lock releases it`() = test {
        val rw = AsyncReadWriteMutex()
        val holding = CompletableDeferred<Unit>()
        val writer = launch(Dispatchers.Default) { rw.withWriteLock { holding.complete(Unit); awaitCancellation() } }
        holding.await()
        assertTrue(rw.isWriteLocked)
        val reader = async { rw.withReadLock { rw.getReaders() } }
        writer.cancel()
        writer.join()
        assertEquals(1, reader.await(), "the waiting reader got the lock the cancelled writer released")
        rw.assertFreeAndIdle()
    }

    /**
     * The grant resumes the waiter, but its dispatcher is busy; the coroutine is cancelled before
     * it runs. kotlinx then resumes it with the cancellation (prompt cancellation), and the lock
     * granted to it is released again instead of being held by a coroutine that will never
     * release it.
     */
    @Test
    fun `a coroutine cancelled between its grant and its resumption does not keep the lock`() = test {
        val rw = AsyncReadWriteMutex()
        val java = rw.tryWriteLock()!!
        var ran = false
        val reader = launch(home, start = CoroutineStart.UNDISPATCHED) { rw.withReadLock { ran = true } }
        assertEquals(1, rw.getQueuedReaders())
        val gate = CountDownLatch(1)
        single.execute { gate.await(30, TimeUnit.SECONDS) } // home is busy until the gate opens
        java.unlock() // grants the reader: its resumption waits for home
        assertEquals(1, rw.getReaders(), "granted, not yet resumed")
        reader.cancel()
        gate.countDown()
        reader.join()
        assertTrue(reader.isCancelled)
        assertFalse(ran, "the cancelled coroutine did not run its action")
        rw.assertFreeAndIdle()
    }

    /**
     * The same race for the handles of `readLock()` / `writeLock()`, which wait through their own
     * request (`withReadLock {}` and `withWriteLock {}` take a hold without a handle).
     */
    @Test
    fun `a coroutine cancelled between its grant and its resumption does not keep a handle's lock`() = test {
        for (write in listOf(false, true)) {
            val rw = AsyncReadWriteMutex()
            val java = rw.tryWriteLock()!!
            var got: AutoCloseable? = null
            val waiter = launch(home, start = CoroutineStart.UNDISPATCHED) {
                got = if (write) rw.writeLock() else rw.readLock()
            }
            assertEquals(1, if (write) rw.getQueuedWriters() else rw.getQueuedReaders())
            val gate = CountDownLatch(1)
            single.execute { gate.await(30, TimeUnit.SECONDS) } // home is busy until the gate opens
            java.unlock() // grants the waiter: its resumption waits for home
            assertTrue(rw.isLocked(), "granted, not yet resumed")
            waiter.cancel()
            gate.countDown()
            waiter.join()
            assertTrue(waiter.isCancelled)
            assertNull(got, "the cancelled coroutine got no handle")
            rw.assertFreeAndIdle()
        }
    }

    @Test
    fun `a lock wait under withTimeout that times out is withdrawn`() = test {
        val rw = AsyncReadWriteMutex()
        val java = rw.tryReadLock()!!
        assertNull(withTimeoutOrNull(20.milliseconds) { rw.withWriteLock { 1 } })
        assertFalse(rw.hasWaiters())
        assertNotNull(rw.tryReadLock(), "no writer left blocking readers").unlock()
        java.unlock()
        rw.assertFreeAndIdle()
    }

    @Test
    fun `writeLock then downgrade reads without letting a writer in`() = test {
        val rw = AsyncReadWriteMutex()
        val w = rw.writeLock()
        val writer = async(start = CoroutineStart.UNDISPATCHED) { rw.withWriteLock { rw.isWriteLocked } }
        w.downgrade().use {
            assertEquals(1, rw.getReaders())
            assertFalse(writer.isCompleted)
        }
        assertFalse(w.unlock(), "downgraded: already released")
        assertTrue(writer.await())
        rw.assertFreeAndIdle()
    }

    @Test
    fun `coroutines cancelled at random moments leak nothing`() = test {
        val rw = AsyncReadWriteMutex()
        val readers = AtomicInteger()
        val writers = AtomicInteger()
        val violations = AtomicInteger()
        val completed = AtomicLong()
        val cancelled = AtomicLong()
        coroutineScope {
            repeat(4) { t ->
                launch(Dispatchers.Default) {
                    val rnd = SplittableRandom(77L + t)
                    repeat(5_000) {
                        val write = rnd.nextInt(4) == 0
                        val op = launch(start = CoroutineStart.UNDISPATCHED) {
                            if (write) {
                                rw.withWriteLock {
                                    if (writers.incrementAndGet() != 1 || readers.get() != 0) violations.incrementAndGet()
                                    try {
                                        yield() // may throw: cancelled while holding
                                    } finally {
                                        writers.decrementAndGet()
                                    }
                                }
                            } else {
                                rw.withReadLock {
                                    readers.incrementAndGet()
                                    if (writers.get() != 0) violations.incrementAndGet()
                                    try {
                                        yield()
                                    } finally {
                                        readers.decrementAndGet()
                                    }
                                }
                            }
                            completed.incrementAndGet()
                        }
                        repeat(rnd.nextInt(50)) { Thread.onSpinWait() }
                        if (rnd.nextBoolean()) {
                            op.cancel()
                            cancelled.incrementAndGet()
                        }
                        op.join()
                    }
                }
            }
        }
        assertEquals(0, violations.get())
        assertTrue(completed.get() > 0 && cancelled.get() > 0)
        rw.assertFreeAndIdle()
        assertNotNull(rw.tryWriteLock()).unlock()
    }
}
