package dev.corobridge.sync

import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import kotlinx.coroutines.yield
import org.junit.jupiter.api.Test
import java.util.SplittableRandom
import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.atomic.AtomicIntegerArray
import java.util.concurrent.atomic.AtomicLong
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertTrue
import kotlin.time.Duration.Companion.seconds

/**
 * Cancellation races on the Kotlin faces: each operation runs in its own coroutine, started
 * undispatched so that it is already waiting, and is cancelled at a random moment while the other
 * side runs on other threads (10^5 cancel points for the channel). Elements and permits are
 * conserved: an element whose `send` returned is received exactly once, an element whose `send`
 * threw is never received, an element taken by a `receiveAsFlow` collection is collected, and
 * every permit is back at the end.
 */
class KotlinFacesCancellationRaceTest {

    @Test
    fun `channel elements are neither lost nor duplicated when senders and receivers are cancelled`() = runBlocking<Unit> {
        withTimeout(60.seconds) {
            val ch = AsyncChannel.rendezvous<Int>()
            val perProducer = 30_000
            val producers = 2
            val n = producers * perProducer
            val delivered = AtomicIntegerArray(n)
            val received = AtomicIntegerArray(n)
            val cancelPoints = AtomicLong()
            val withdrawn = AtomicLong()
            coroutineScope {
                val consumers = (0 until 2).map { c ->
                    launch(Dispatchers.Default) {
                        val rnd = SplittableRandom(10L + c)
                        var ended = false
                        while (!ended) {
                            val op = launch(start = CoroutineStart.UNDISPATCHED) {
                                val v = ch.receiveOrNull()
                                if (v == null) ended = true else received.incrementAndGet(v)
                            }
                            pause(rnd)
                            op.cancel()
                            op.join()
                            cancelPoints.incrementAndGet()
                        }
                    }
                }
                (0 until producers).map { p ->
                    launch(Dispatchers.Default) {
                        val rnd = SplittableRandom(20L + p)
                        for (i in 0 until perProducer) {
                            val x = p * perProducer + i
                            val op = launch(start = CoroutineStart.UNDISPATCHED) {
                                ch.send(x)
                                delivered.set(x, 1) // runs only if send returned normally
                            }
                            pause(rnd)
                            op.cancel()
                            op.join()
                            cancelPoints.incrementAndGet()
                            if (delivered.get(x) == 0) withdrawn.incrementAndGet()
                        }
                    }
                }.forEach { it.join() }
                ch.close()
                consumers.forEach { it.join() }
            }
            for (x in 0 until n) {
                assertEquals(delivered.get(x), received.get(x), "element $x")
            }
            assertTrue(cancelPoints.get() >= 100_000, "cancel points $cancelPoints")
            assertTrue(withdrawn.get() > 0, "some sends were withdrawn")
        }
    }

    @Test
    fun `semaphore and mutex permits are conserved when acquirers are cancelled`() = runBlocking<Unit> {
        withTimeout(60.seconds) {
            val permits = AsyncSemaphore(2)
            val mutex = AsyncMutex()
            val inSemaphore = AtomicInteger()
            val inMutex = AtomicInteger()
            val violations = AtomicInteger()
            coroutineScope {
                repeat(4) { w ->
                    launch(Dispatchers.Default) {
                        val rnd = SplittableRandom(30L + w)
                        repeat(10_000) {
                            val op = launch(start = CoroutineStart.UNDISPATCHED) {
                                permits.withPermit {
                                    if (inSemaphore.incrementAndGet() > 2) violations.incrementAndGet()
                                    inSemaphore.decrementAndGet()
                                }
                                mutex.withLock {
                                    if (inMutex.incrementAndGet() > 1) violations.incrementAndGet()
                                    inMutex.decrementAndGet()
                                }
                            }
                            pause(rnd)
                            op.cancel()
                            op.join()
                        }
                    }
                }
            }
            assertEquals(0, violations.get())
            assertEquals(2, permits.availablePermits)
            assertFalse(mutex.isLocked)
        }
    }

    @Test
    fun `receiveAsFlow collections cancelled at random moments lose no element`() = runBlocking<Unit> {
        withTimeout(60.seconds) {
            val ch = AsyncChannel.rendezvous<Int>()
            val n = 30_000
            val received = AtomicIntegerArray(n)
            val collections = AtomicLong()
            coroutineScope {
                launch(Dispatchers.Default) {
                    for (i in 0 until n) ch.send(i)
                    ch.close()
                }
                repeat(2) { c ->
                    launch(Dispatchers.Default) {
                        val rnd = SplittableRandom(40L + c)
                        var drained = false
                        while (!drained) {
                            val collection = launch(start = CoroutineStart.UNDISPATCHED) {
                                ch.receiveAsFlow().collect { received.incrementAndGet(it) }
                                drained = true // completed: the channel is closed and drained
                            }
                            pause(rnd)
                            collection.cancel()
                            collection.join()
                            collections.incrementAndGet()
                        }
                    }
                }
            }
            for (x in 0 until n) {
                assertEquals(1, received.get(x), "element $x")
            }
            assertTrue(collections.get() > 1_000, "collections cancelled: $collections")
        }
    }

    private suspend fun pause(rnd: SplittableRandom) {
        when (rnd.nextInt(4)) {
            0 -> Unit
            1 -> yield()
            else -> repeat(rnd.nextInt(100)) { Thread.onSpinWait() }
        }
    }
}
