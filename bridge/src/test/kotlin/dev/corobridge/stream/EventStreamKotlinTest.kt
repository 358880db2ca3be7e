package dev.corobridge.stream

import dev.corobridge.bridge.await
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.async
import kotlinx.coroutines.flow.map
import kotlinx.coroutines.flow.take
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import kotlinx.coroutines.yield
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import java.util.concurrent.CountDownLatch
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertIs
import kotlin.test.assertTrue
import kotlin.time.Duration.Companion.seconds

/** The Kotlin face of event streams: a plain Flow collection that unsubscribes when it stops. */
class EventStreamKotlinTest {
    private val single = Executors.newSingleThreadExecutor { Thread(it, "kotlin-home") }
    private val home = single.asCoroutineDispatcher()

    @AfterEach
    fun tearDown() {
        home.close()
    }

    private fun test(block: suspend kotlinx.coroutines.CoroutineScope.() -> Unit) = runBlocking<Unit> {
        withTimeout(30.seconds) { block() }
    }

    @Test
    fun `a source is a flow collected on the collector's dispatcher until the source closes`() = test {
        val source = EventSource<String>("states")
        val collected = async(home, start = CoroutineStart.UNDISPATCHED) {
            source.asFlow().map { it + "@" + Thread.currentThread().name.startsWith("kotlin-home") }.toList()
        }
        assertEquals(1, source.subscriberCount, "subscribed when the collection started")
        Thread({
            source.publish("loading")
            source.publish("ready")
            source.close()
        }, "publisher").start()
        assertEquals(listOf("loading@true", "ready@true"), collected.await())
        assertEquals(0, source.subscriberCount, "unsubscribed when the collection ended")
    }

    @Test
    fun `stopping the collection unsubscribes, whether cancelled or by take`() = test {
        val source = EventSource<Int>()
        val collector = launch(start = CoroutineStart.UNDISPATCHED) { source.asFlow().collect { } }
        assertEquals(1, source.subscriberCount)
        collector.cancel()
        collector.join()
        assertEquals(0, source.subscriberCount)

        val firstTwo = async(start = CoroutineStart.UNDISPATCHED) { source.asFlow().take(2).toList() }
        source.publish(1)
        source.publish(2)
        source.publish(3)
        assertEquals(listOf(1, 2), firstTwo.await())
        assertEquals(0, source.subscriberCount)
    }

    @Test
    fun `an event handed to a collection as it is cancelled reaches the collector`() = test {
        val source = EventSource<String>()
        val got = mutableListOf<String>()
        val collector = launch(home, start = CoroutineStart.UNDISPATCHED) { source.asFlow().collect { got += it } }
        withContext(home) {
            assertTrue(source.publish("handed over")) // to the waiting collection, on the home thread ...
            collector.cancel()                         // ... which is cancelled before it runs again
        }
        collector.join()
        assertEquals(listOf("handed over"), got)
        assertEquals(0, source.subscriberCount)

        val stream = source.subscribe()
        val consumed = mutableListOf<String>()
        val consumer = launch(home, start = CoroutineStart.UNDISPATCHED) { stream.consumeAsFlow().collect { consumed += it } }
        withContext(home) {
            assertTrue(source.publish("also handed over"))
            consumer.cancel()
        }
        consumer.join()
        assertEquals(listOf("also handed over"), consumed)
        assertIs<Next.End<String>>(stream.next(), "the collection closed the stream")
    }

    @Test
    fun `a failing source fails the collection`() = test {
        val source = EventSource<Int>()
        val collected = async(start = CoroutineStart.UNDISPATCHED) { runCatching { source.asFlow().toList() } }
        source.publish(1)
        source.fail(IllegalStateException("source broke"))
        val e = assertFailsWith<IllegalStateException> { collected.await().getOrThrow() }
        assertTrue(generateSequence<Throwable>(e) { it.cause }.any { it.message == "source broke" })
    }

    @Test
    fun `a Java-produced flow is collected with back-pressure`() = test {
        val produced = AtomicInteger()
        val released = CountDownLatch(1)
        val flow = Flows.create<Int>(1) { emitter ->
            emitter.onClose { released.countDown() }
            Thread({
                var i = 1
                while (i <= 1_000 && !emitter.isClosed) {
                    try {
                        runBlocking { emitter.emitAsync(i++).await() } // Java would write emit(x).await()
                    } catch (e: java.util.concurrent.CancellationException) {
                        break
                    }
                    produced.incrementAndGet()
                }
            }, "java-producer").start()
        }
        val firstThree = flow.take(3).toList()
        assertEquals(listOf(1, 2, 3), firstThree)
        assertTrue(released.await(30, TimeUnit.SECONDS), "the producer was told the collection ended")
        assertTrue(produced.get() <= 6, "bounded by the buffer: produced ${produced.get()}")
    }

    /**
     * A Java emission waiting for room when the collection is cancelled from outside (a timeout,
     * the collector's job) ends cancelled, as the emitter promises: kotlinx only closes the flow's
     * channel then, which keeps a waiting sender that is not a coroutine of the producer waiting.
     */
    @Test
    fun `an emission waiting when the collection is cancelled from outside ends cancelled`() = test {
        for (capacity in listOf(0, 1)) {
            val pending = java.util.concurrent.CompletableFuture<dev.corobridge.bridge.Awaitable<Void?>>()
            val flow = Flows.create<Int>(capacity) { emitter ->
                Thread.ofVirtual().start {
                    emitter.emitAsync(0).join() // taken by the collector, which then sits in its delay
                    var i = 1
                    while (true) {
                        val emission = emitter.emitAsync(i++)
                        if (!emission.isDone) {
                            pending.complete(emission) // waits for room
                            return@start
                        }
                    }
                }
            }
            kotlinx.coroutines.withTimeoutOrNull(300) { flow.collect { kotlinx.coroutines.delay(60_000) } }
            val emission = pending.get(10, TimeUnit.SECONDS)
            val outcome = runCatching { emission.join(java.time.Duration.ofSeconds(10)) }.exceptionOrNull()
            assertIs<java.util.concurrent.CancellationException>(outcome, "capacity $capacity: $emission ended with $outcome")
        }
    }

    /** As kotlinx's `consumeAsFlow`: a second collection is a mistake, said at once, not an empty flow or half the events. */
    @Test
    fun `a stream's consumeAsFlow is collected once`() = test {
        val stream = EventStreams.from(StreamKotlinHelpers.finite(3), Dispatchers.Default, 0)
        val flow = stream.consumeAsFlow()
        assertEquals(listOf(1, 2, 3), flow.toList())
        val again = assertFailsWith<IllegalStateException> { flow.toList() }
        assertTrue(again.message.orEmpty().contains("once"), again.message)
    }

    @Test
    fun `a flow is an event stream, read with next from Kotlin too`() = test {
        val stream = EventStreams.from(StreamKotlinHelpers.finite(3), Dispatchers.Default, 0)
        assertEquals(1, (stream.next() as Next.Value).value())
        assertEquals(listOf(2, 3), stream.consumeAsFlow().toList())
        assertIs<Next.End<Int>>(stream.next())
        val source = EventSource<String>()
        val s = source.subscribe()
        val pending = async(home, start = CoroutineStart.UNDISPATCHED) { s.next() }
        yield()
        source.publish("x")
        assertEquals("x", pending.await().value())
        s.close()
    }
}
