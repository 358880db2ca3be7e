package dev.corobridge.pump

import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.launch
import kotlinx.coroutines.withContext
import org.junit.jupiter.api.Test
import java.time.Duration
import java.util.concurrent.ThreadLocalRandom
import java.util.concurrent.atomic.AtomicIntegerArray
import java.util.concurrent.atomic.AtomicReference
import kotlin.test.assertTrue

/**
 * Concurrent `shutdown(Duration)` calls: the effective deadline is the earliest one asked for, in
 * every interleaving. A [ManualPump] keeps its clock still, so every call computes its deadline
 * from the same "now" and the pump's behaviour shows which deadline won: with a coroutine that
 * never finishes its cleanup, the pump terminates at the next iteration only if the deadline is
 * "now", and stays in phase 2 if it is an hour away.
 */
class ShutdownDeadlineRaceTest {

    /** A pump with one tracked coroutine whose cleanup never ends, so only the deadline can end phase 2. */
    private fun stuckPump(name: String): Pair<ManualPump, CompletableDeferred<Unit>> {
        val pump = ManualPump.create(name)
        val release = CompletableDeferred<Unit>()
        pump.scope.launch {
            try {
                awaitCancellation()
            } finally {
                withContext(NonCancellable) { release.await() }
            }
        }
        pump.runUntilIdle()
        return pump to release
    }

    /**
     * Races `shutdown(first)` against `shutdown(second)` on [PUMPS] fresh stuck pumps (prepared by
     * [before]) and [verify]s each one on the test thread. Two threads walk the pumps in lockstep:
     * each calls shutdown on pump i as soon as the other has finished with pump i - 1, so their
     * calls on the same pump start within a cache-line transfer of each other; a random few spins
     * before each call make them overlap in every order over the many pumps.
     */
    private fun race(
        first: Duration,
        second: Duration,
        before: (ManualPump) -> Unit = {},
        verify: (pump: ManualPump) -> String?,
    ) {
        val problems = mutableListOf<String>()
        repeat(BATCHES) { batch ->
            val pumps = List(PUMPS) { stuckPump("deadline-race-$batch-$it") }
            pumps.forEach { (pump, _) -> before(pump) }
            val progress = AtomicIntegerArray(2) // pumps finished, per thread
            val failure = AtomicReference<Throwable>()
            val workers = listOf(first, second).mapIndexed { me, grace ->
                Thread({
                    try {
                        val random = ThreadLocalRandom.current()
                        for (i in pumps.indices) {
                            while (progress.get(1 - me) < i) {
                                if (failure.get() != null) return@Thread
                                Thread.onSpinWait()
                            }
                            repeat(random.nextInt(8)) { Thread.onSpinWait() }
                            pumps[i].first.shutdown(grace)
                            progress.set(me, i + 1)
                        }
                    } catch (e: Throwable) {
                        failure.compareAndSet(null, e)
                    }
                }, "shutdown($grace)").apply { isDaemon = true; start() }
            }
            workers.forEach { it.joinBounded() }
            failure.get()?.let { throw AssertionError("a shutdown call failed", it) }
            try {
                pumps.forEachIndexed { i, (pump, _) -> verify(pump)?.let { problems += "pump ${batch * PUMPS + i}: $it" } }
            } finally {
                for ((pump, release) in pumps) {
                    release.complete(Unit)
                    pump.shutdownNow()
                    pump.runUntilIdle()
                }
            }
        }
        assertTrue(problems.isEmpty(), "${problems.size} of ${BATCHES * PUMPS} pumps, e.g. ${problems.take(3)}")
    }

    @Test
    fun `concurrent shutdown(ZERO) and shutdown(1 h) end phase 2 at once in every interleaving`() {
        race(Duration.ZERO, Duration.ofHours(1)) { pump ->
            pump.runUntilIdle()
            val report = pump.termination().getNow(null)
            when {
                report == null -> "still shutting down: a concurrent shutdown(1 h) extended shutdown(ZERO)"
                report.graceful() || report.abandonedCoroutines().size != 1 -> "unexpected report $report"
                else -> null
            }
        }
    }

    @Test
    fun `concurrent calls that lower a running shutdown's deadline keep the lowest`() {
        val startedWithAnHour: (ManualPump) -> Unit = { pump ->
            pump.shutdown(Duration.ofHours(1))
            pump.runUntilIdle() // phase 1 done: the coroutine is stuck in its cleanup
            check(!pump.isTerminated)
        }
        race(Duration.ZERO, Duration.ofMinutes(30), startedWithAnHour) { pump ->
            pump.runUntilIdle()
            if (pump.isTerminated) null else "still shutting down: shutdown(30 min) undid the lower deadline of shutdown(ZERO)"
        }
    }

    private companion object {
        /** Pumps per batch (each holds a coroutine and two queues, so not all at once). */
        const val PUMPS = 2_000
        const val BATCHES = 2
    }
}
