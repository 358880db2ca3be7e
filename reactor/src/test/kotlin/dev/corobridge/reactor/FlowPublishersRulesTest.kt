package dev.corobridge.reactor

import kotlinx.coroutines.flow.flowOf
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Test
import org.reactivestreams.Publisher
import org.reactivestreams.Subscriber
import org.reactivestreams.Subscription
import java.time.Duration
import java.util.concurrent.CompletableFuture
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicLong
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertIs
import kotlin.test.assertTrue

/**
 * The Reactive Streams rules at the edges of [FlowPublishers], where another library's publisher or
 * subscriber meets a flow: a request of zero or less is refused (rule 3.9), a null element fails
 * the stream instead of travelling or ending it silently (rule 2.13), a second subscription is
 * cancelled (rule 2.5).
 */
class FlowPublishersRulesTest {

    private val wait = Duration.ofSeconds(30)

    /** What a subscriber that requests [n] at once receives as its terminal signal (or an element). */
    private fun firstSignal(publisher: Publisher<*>, n: Long): CompletableFuture<Any?> {
        val signal = CompletableFuture<Any?>()
        publisher.subscribe(object : Subscriber<Any?> {
            override fun onSubscribe(s: Subscription) = s.request(n)
            override fun onNext(t: Any?) {
                signal.complete("onNext($t)")
            }
            override fun onError(t: Throwable) {
                signal.complete(t)
            }
            override fun onComplete() {
                signal.complete("onComplete")
            }
        })
        return signal
    }

    @Test
    fun `a flow as a publisher refuses a request of zero or less with IllegalArgumentException`() {
        for (n in listOf(0L, -1L)) {
            val signal = firstSignal(FlowPublishers.toPublisher(flowOf(1, 2, 3)), n).get(wait.seconds, TimeUnit.SECONDS)
            assertIs<IllegalArgumentException>(signal, "request($n): $signal")
        }
    }

    @Test
    fun `a flow with a null element fails its publisher and flux with NullPointerException`() {
        val nullable = flowOf(1, null, 3)
        val flux = FlowPublishers.toFlux(nullable)
        val got = mutableListOf<Int?>()
        val failure = assertFailsWith<NullPointerException> { flux.doOnNext { got += it }.blockLast(wait) }
        assertEquals(listOf<Int?>(1), got, "the elements before the null arrive")
        assertTrue(failure.message!!.contains("null"), failure.message)
        val signal = firstSignal(FlowPublishers.toPublisher(flowOf<Int?>(null)), 1).get(wait.seconds, TimeUnit.SECONDS)
        assertIs<NullPointerException>(signal, "a null element is not signalled: $signal")
    }

    /** A publisher that breaks the rules: at the first request it signals [elements] (nulls included), then completes. */
    private fun raw(vararg elements: Int?, subscriptions: Int = 1, secondCancelled: AtomicBoolean? = null,
                    secondRequested: AtomicLong? = null): Publisher<Int> = Publisher { s ->
        @Suppress("UNCHECKED_CAST")
        val subscriber = s as Subscriber<Int?>
        subscriber.onSubscribe(object : Subscription {
            var done = false
            override fun request(n: Long) {
                if (done) return
                done = true
                for (e in elements) {
                    try {
                        subscriber.onNext(e)
                    } catch (refused: NullPointerException) {
                        return // rule 2.13: the subscriber throws at a null; this publisher stops there
                    }
                }
                subscriber.onComplete()
            }

            override fun cancel() {
                done = true
            }
        })
        repeat(subscriptions - 1) {
            subscriber.onSubscribe(object : Subscription {
                override fun request(n: Long) {
                    secondRequested?.addAndGet(n)
                }

                override fun cancel() {
                    secondCancelled?.set(true)
                }
            })
        }
    }

    @Test
    fun `a publisher that signals null fails its flow with NullPointerException instead of ending it early`() = runBlocking<Unit> {
        val got = mutableListOf<Int>()
        val failure = assertFailsWith<NullPointerException> {
            FlowPublishers.toFlow(raw(1, null, 3)).collect { got += it }
        }
        assertEquals(listOf(1), got)
        assertTrue(failure.message!!.contains("null"), failure.message)
        assertEquals(listOf(1, 2, 3), FlowPublishers.toFlow(raw(1, 2, 3)).toList())
    }

    @Test
    fun `a flow of a publisher cancels a second subscription and never requests on it`() = runBlocking<Unit> {
        val cancelled = AtomicBoolean()
        val requested = AtomicLong()
        assertEquals(listOf(1, 2), FlowPublishers.toFlow(raw(1, 2, subscriptions = 2, secondCancelled = cancelled,
            secondRequested = requested)).toList())
        assertTrue(cancelled.get(), "the second subscription is cancelled")
        assertEquals(0, requested.get(), "nothing is requested on it")
    }
}
