package dev.corobridge.bridge

import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.withContext
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit

/**
 * Suspend functions that cross contexts, for the hop-trace tests of both languages: from where the
 * caller runs them (the single-threaded context [a]) to `Dispatchers.Default`, back to [a], then to
 * [b] and back to [a] — returning, or failing on [b].
 *
 * Each block away from [a] first waits until [a] has run what was queued behind the caller's step:
 * as [a] runs its queue in order on one thread, the caller has then suspended, and so resumes on
 * [a] by a dispatch (a hop) when the block ends. Without that wait a block that finishes before the
 * caller suspends lets the caller continue without ever leaving [a]: no hop, and no fixed trace.
 */
class HopRoutes(private val a: ExecutionContext, private val b: ExecutionContext) {
    /** A → Default → A → B → A; returns "arrived@" and the thread that ran the block on [b]. */
    suspend fun crossToB(): String {
        withContext(Dispatchers.Default) { afterCallerSuspended() }
        return withContext(b.dispatcher) {
            afterCallerSuspended()
            "arrived@" + Thread.currentThread().name
        }
    }

    /** A → Default → A → B, failing on [b] with an [IllegalStateException] "failed on B". */
    suspend fun failOnB(): String {
        withContext(Dispatchers.Default) { afterCallerSuspended() }
        return withContext(b.dispatcher) {
            afterCallerSuspended()
            throw IllegalStateException("failed on B")
        }
    }

    /** Blocks (a test's worker thread) until [a] has run everything queued before this call. */
    fun afterCallerSuspended() {
        val drained = CountDownLatch(1)
        a.execute { drained.countDown() }
        check(drained.await(30, TimeUnit.SECONDS)) { "${a.name} did not run its queue" }
    }
}
