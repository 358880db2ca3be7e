package dev.corobridge.sync

import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.async
import kotlinx.coroutines.cancel
import kotlinx.coroutines.channels.ClosedSendChannelException
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import java.util.concurrent.Executors
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertFalse
import kotlin.test.assertIs
import kotlin.test.assertNull
import kotlin.test.assertTrue
import kotlin.time.Duration.Companion.seconds

/**
 * The exits of a waiting Kotlin send (the receive side is in `SyncKotlinTest`): delivered, closed,
 * cancelled with the channel, withdrawn by the caller's cancellation (nothing sent), matched and
 * then cancelled (returns normally), and a caller cancelled before it waits.
 */
class ChannelSuspensionTest {
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
    fun `a waiting send completes when a receive frees a slot`() = test {
        val ch = AsyncChannel.bounded<Int>(1)
        ch.send(1)
        val sender = async(start = CoroutineStart.UNDISPATCHED) { ch.send(2); "sent" }
        assertFalse(sender.isCompleted, "the buffer is full: it waits")
        assertEquals(1, ch.receive())
        assertEquals("sent", sender.await(), "its element moved into the freed slot")
        assertEquals(2, ch.receive())
    }

    @Test
    fun `a waiting send is kept by a close and fails on a cancel of the channel`() = test {
        val closed = AsyncChannel.rendezvous<Int>()
        val kept = async(start = CoroutineStart.UNDISPATCHED) { closed.send(1); "sent" }
        closed.close()
        assertEquals(1, closed.receive(), "an element sent before the close is still received")
        assertEquals("sent", kept.await())
        assertFailsWith<ClosedSendChannelException> { closed.send(2) }

        val cancelled = AsyncChannel.rendezvous<Int>()
        val failed = async(start = CoroutineStart.UNDISPATCHED) { runCatching { cancelled.send(1) } }
        cancelled.cancel()
        assertIs<CancellationException>(failed.await().exceptionOrNull())
        assertNull(cancelled.receiveOrNull(), "nothing was delivered")
    }

    @Test
    fun `a cancelled waiting send is withdrawn and never delivered`() = test {
        val ch = AsyncChannel.rendezvous<String>()
        val withdrawn = launch(start = CoroutineStart.UNDISPATCHED) { ch.send("never") }
        withdrawn.cancel()
        withdrawn.join()
        assertNull(ch.tryReceive(), "the withdrawn sender is gone")
        assertTrue(ch.isEmpty)
    }

    @Test
    fun `a send matched before its coroutine is cancelled returns normally`() = test {
        val ch = AsyncChannel.rendezvous<String>()
        var returned = false
        val matched = launch(home, start = CoroutineStart.UNDISPATCHED) {
            ch.send("delivered")
            returned = true
        }
        withContext(home) {
            assertEquals("delivered", ch.tryReceive()) // takes the element on the home thread ...
            matched.cancel()                           // ... and cancels before the sender runs again
        }
        matched.join()
        assertTrue(returned, "the element was delivered: the send returns normally")
    }

    @Test
    fun `a coroutine cancelled before it waits withdraws at once`() = test {
        val ch = AsyncChannel.rendezvous<Int>()
        var received: Result<Int>? = null
        launch(Dispatchers.Default) {
            coroutineContext.cancel()
            received = runCatching { ch.receive() }
        }.join()
        assertIs<CancellationException>(received!!.exceptionOrNull())
        var sent: Result<Unit>? = null
        launch(Dispatchers.Default) {
            coroutineContext.cancel()
            sent = runCatching { ch.send(1) }
        }.join()
        assertIs<CancellationException>(sent!!.exceptionOrNull())
        assertFalse(ch.trySend(2), "no receiver is left waiting")
        assertNull(ch.tryReceive(), "no sender is left waiting")
    }

    @Test
    fun `a recycled waiter is withdrawn only by its current caller's cancellation`() = test {
        val ch = AsyncChannel.rendezvous<Int>()
        val first = async(start = CoroutineStart.UNDISPATCHED) { ch.receive() }
        ch.send(1)
        assertEquals(1, first.await())
        val spare = assertIs<ChannelSuspension<*>>(ch.core.takeSpare(), "the first wait's waiter is kept")
        ch.core.putSpare(spare)
        val second = async(start = CoroutineStart.UNDISPATCHED) { ch.receive() }
        assertNull(ch.core.takeSpare(), "the second wait reuses it")
        spare.invoke(CancellationException("a late invocation of the first caller's handler"))
        assertTrue(ch.trySend(2), "the second caller's receive is still waiting: not withdrawn")
        assertEquals(2, second.await())

        val third = launch(start = CoroutineStart.UNDISPATCHED) { ch.receive() }
        third.cancel()
        third.join()
        assertFalse(ch.trySend(3), "the current caller's own cancellation still withdraws it")
    }

    @Test
    fun `waits of several coroutines on one channel share no waiter`() = test {
        val ch = AsyncChannel.rendezvous<Int>()
        val n = 1_000
        val receivers = (0 until 4).map { async(Dispatchers.Default) { var sum = 0L; repeat(n) { sum += ch.receive() }; sum } }
        val senders = (0 until 4).map { s -> launch(Dispatchers.Default) { repeat(n) { ch.send(s * n + it) } } }
        senders.forEach { it.join() }
        val total = receivers.sumOf { it.await() }
        assertEquals((0 until 4 * n).sumOf { it.toLong() }, total, "every element received once")
    }
}
