package dev.corobridge.sync

import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.channels.ClosedReceiveChannelException
import kotlinx.coroutines.channels.ClosedSendChannelException
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.SupervisorJob
import kotlinx.coroutines.cancel
import kotlinx.coroutines.joinAll
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeoutOrNull
import org.junit.jupiter.api.Test
import java.util.SplittableRandom
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.ConcurrentLinkedQueue
import java.util.concurrent.CancellationException
import java.util.concurrent.atomic.AtomicLong
import kotlin.test.assertEquals
import kotlin.test.assertTrue
import kotlin.test.fail
import kotlin.time.Duration.Companion.seconds

/**
 * A `close()` or `cancel()` of an [AsyncChannel] racing the Kotlin face's suspended sends and
 * receives, in 2,000 rounds on `Dispatchers.Default` (a rendezvous channel and a buffer of one, the
 * end at a random moment). Every call ends, the documented way: nothing waits on (a round fails
 * when its calls have not ended 10 s after the end);
 * a send fails only with [ClosedSendChannelException] after a close or with the cancellation after
 * a cancel; a receive ends only with the end (`receiveOrNull()`: `null`; `receive()`:
 * [ClosedReceiveChannelException] or the cancellation). No element is received twice or from a send
 * that failed, and after a close every element whose send returned is received (the receivers drain
 * the waiting senders); a cancel may discard elements, as documented. The model-checked twin of this
 * test, on the Java face, is `AsyncChannelLincheckTest`.
 */
class KotlinChannelCloseRaceTest {

    @Test
    fun `a close or cancel racing suspended sends and receives ends every call the documented way`() = runBlocking<Unit> {
        val rnd = SplittableRandom(7)
        val sendsRefusedByClose = AtomicLong()
        val sendsEndedByCancel = AtomicLong()
        val drainedAfterClose = AtomicLong()
        repeat(ROUNDS) { round ->
            val cancel = round % 2 == 1
            val ch = if (round % 4 < 2) AsyncChannel.rendezvous<Int>() else AsyncChannel.bounded(1)
            val sent = ConcurrentHashMap.newKeySet<Int>()
            val failed = ConcurrentHashMap.newKeySet<Int>()
            val received = ConcurrentLinkedQueue<Int>()
            val problems = ConcurrentLinkedQueue<String>()
            val endAfter = rnd.nextInt(4_000)
            // Outside runBlocking's scope, so that a call left waiting fails the round instead of
            // hanging the test (a waiting channel call is not abandoned on cancellation).
            val calls = CoroutineScope(Dispatchers.Default + SupervisorJob())
            val jobs = buildList {
                repeat(SENDERS) { s ->
                    add(calls.launch {
                        for (i in 0 until PER_SENDER) {
                            val x = s * PER_SENDER + i
                            try {
                                ch.send(x)
                                sent += x
                            } catch (e: ClosedSendChannelException) {
                                if (cancel) problems += "send($x) threw $e after a cancel"
                                failed += x
                                sendsRefusedByClose.incrementAndGet()
                                break
                            } catch (e: CancellationException) {
                                if (!cancel) problems += "send($x) threw $e after a close"
                                failed += x
                                sendsEndedByCancel.incrementAndGet()
                                break
                            }
                        }
                    })
                }
                repeat(RECEIVERS) { r ->
                    add(calls.launch {
                        while (true) {
                            val v = try {
                                if (r % 2 == 0) ch.receiveOrNull() else ch.receive()
                            } catch (e: ClosedReceiveChannelException) {
                                if (cancel) problems += "receive() threw $e after a cancel"
                                null
                            } catch (e: CancellationException) {
                                if (!cancel) problems += "receive() threw $e after a close"
                                null
                            }
                            if (v == null) break
                            received += v
                        }
                    })
                }
                add(calls.launch {
                    spin(endAfter)
                    if (cancel) ch.cancel() else ch.close()
                })
            }
            val what = "round $round (${if (cancel) "cancel" else "close"}, capacity ${ch.capacity})"
            if (withTimeoutOrNull(10.seconds) { jobs.joinAll() } == null) {
                calls.cancel()
                fail("$what: calls still wait 10 s after the end: $ch, sent $sent, received $received")
            }
            assertTrue(problems.isEmpty(), "$what: $problems")
            val distinct = received.toSet()
            assertEquals(received.size, distinct.size, "$what: an element was received twice: $received")
            assertTrue(sent.containsAll(distinct), "$what: received $received, but only $sent were sent")
            assertTrue(failed.none { it in distinct }, "$what: elements of failed sends were received: $failed, $received")
            if (!cancel) {
                assertEquals(sent.toSet(), distinct, "$what: sent elements were not received after a close")
                drainedAfterClose.addAndGet(distinct.size.toLong())
            }
        }
        // The races happened: calls were ended by both kinds of end.
        assertTrue(sendsRefusedByClose.get() > 0, "no send was refused by a close")
        assertTrue(sendsEndedByCancel.get() > 0, "no send was ended by a cancel")
        assertTrue(drainedAfterClose.get() > 0, "no element was received in a closed round")
    }

    private companion object {
        const val ROUNDS = 2_000
        const val SENDERS = 3
        const val PER_SENDER = 20
        const val RECEIVERS = 2

        /** A pause of about `n` short steps, without yielding the thread. */
        fun spin(n: Int) {
            repeat(n) { Thread.onSpinWait() }
        }
    }
}
