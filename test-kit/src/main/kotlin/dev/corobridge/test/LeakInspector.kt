package dev.corobridge.test

import dev.corobridge.pump.MessagePump
import dev.corobridge.ring.RingPool
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.Job
import kotlinx.coroutines.job
import java.time.Duration
import java.util.concurrent.CountDownLatch
import java.util.concurrent.RejectedExecutionException
import java.util.concurrent.TimeUnit

/**
 * What a test left running, in words for [LeakedWorkError]; and the cancellation of what it left on
 * `Dispatchers.Main`. Used by [CorobridgeExtension] after each test, on the test thread.
 *
 * Looked at: coroutines in the pump's scope; coroutines that ran on `Dispatchers.Main` under the
 * test's binding (wherever they were launched, e.g. `GlobalScope` or a scope of the code under
 * test), reported by their outermost live job; tasks queued on the pump (posts, dispatches,
 * completions); timers pending on the pump; ring files open and ring operations in flight in the
 * test's ring pool. Not visible: a coroutine that never touched the pump or Main (on
 * `Dispatchers.Default` only, say), a plain thread the test started, and a suspended coroutine
 * outside the pump's scope that runs on the pump's own dispatcher rather than on
 * `Dispatchers.Main` (`GlobalScope.launch(pump.dispatcher)`): the pump keeps no list of those; and
 * a coroutine started `CoroutineStart.UNDISPATCHED` on Main outside the pump's scope that has not
 * dispatched, resumed or delayed on Main since (it never called the dispatcher).
 */
internal object LeakInspector {

    /** One line per kind of leak, empty if the test left nothing running. */
    @JvmStatic
    fun inspect(pump: MessagePump, binding: MainBinding, rings: RingPool?): List<String> {
        val leaks = mutableListOf<String>()
        val pumpName = pump.name
        val inScope = pump.scope.coroutineContext.job.children.filter { !it.isCompleted }.toList()
        if (inScope.isNotEmpty()) {
            leaks += "${count(inScope.size, "coroutine")} still running in the scope of pump '$pumpName': ${describe(inScope)}"
        }
        val onMain = MainBindings.liveCoroutines(binding)
        if (onMain.isNotEmpty()) {
            leaks += "${count(onMain.size, "coroutine")} still running on Dispatchers.Main (pump '$pumpName'): ${describe(onMain)}"
        }
        val metrics = pump.metrics
        if (metrics.queueDepth() > 0) {
            leaks += "${count(metrics.queueDepth(), "task")} queued on pump '$pumpName' and never run " +
                "(runUntilIdle() runs them)"
        }
        if (metrics.pendingTimers() > 0) {
            leaks += "${count(metrics.pendingTimers().toLong(), "timer")} pending on pump '$pumpName' " +
                "(advanceTimeBy(...) or advanceUntilIdle() fires them; or cancel them)"
        }
        if (rings != null) {
            val ringMetrics = rings.metrics
            if (ringMetrics.openFiles() > 0) {
                leaks += "${count(ringMetrics.openFiles().toLong(), "ring file")} open in ring pool '${rings.name}' " +
                    "(close every RingFile the test opens)"
            }
            val inFlight = if (ringMetrics.inFlight > 0) settledInFlight(rings) else 0
            if (inFlight > 0) {
                leaks += "${count(inFlight.toLong(), "ring operation")} in flight in ring pool " +
                    "'${rings.name}' (await or cancel every operation the test starts)"
            }
        }
        return leaks
    }

    /**
     * The operations in flight in [rings] once each ring's thread has finished what it was doing.
     * A ring settles an operation's outcome (which wakes its awaiter) before it stops counting it
     * as in flight, on its own thread; so an operation the test has just awaited may still count.
     * A task run on every ring after that (a barrier: a ring runs its tasks in order) leaves only
     * operations that have not completed. Bounded wait: a ring that does not run the barrier in
     * [RING_SETTLE] is reported with what it counts.
     */
    private fun settledInFlight(rings: RingPool): Int {
        val all = rings.rings
        val passed = CountDownLatch(all.size)
        for (ring in all) {
            try {
                ring.execute(passed::countDown)
            } catch (e: RejectedExecutionException) {
                passed.countDown() // the ring has shut down: nothing more will change there
            }
        }
        passed.await(RING_SETTLE.toNanos(), TimeUnit.NANOSECONDS)
        return rings.metrics.inFlight
    }

    /** How long [settledInFlight] waits for the rings' threads: generous; a ring normally takes microseconds. */
    private val RING_SETTLE: Duration = Duration.ofSeconds(30)

    /**
     * Cancels what the test left running on `Dispatchers.Main` outside the pump's scope (the pump's
     * shutdown cancels its scope); their cleanup then runs on the pump when it is driven.
     */
    @JvmStatic
    fun cancelLeftovers(binding: MainBinding) {
        val cause = CancellationException("the test ended: cancelled by corobridge-test's CorobridgeExtension")
        for (job in MainBindings.liveCoroutines(binding)) {
            job.cancel(cause)
        }
    }

    private fun describe(jobs: List<Job>): String = jobs.joinToString(", ")

    private fun count(n: Long, what: String): String = if (n == 1L) "1 $what" else "$n ${what}s"

    private fun count(n: Int, what: String): String = count(n.toLong(), what)
}
