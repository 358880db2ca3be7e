package dev.corobridge.pump

import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import java.util.concurrent.TimeUnit
import kotlin.time.Duration
import kotlin.time.Duration.Companion.seconds

// Shared helpers for the pump tests. Every wait is bounded so that a bug fails the test clearly
// instead of hanging the build; none of the bounds is a performance assertion.

/** Generous bound for anything the tests wait for. */
internal val TEST_WAIT: Duration = 30.seconds

/** `runBlocking` with a bounded body: a test that would hang fails with a timeout instead. */
internal fun pumpTest(block: suspend CoroutineScope.() -> Unit) {
    runBlocking { withTimeout(TEST_WAIT) { block() } }
}

/** Shuts the pump down and waits (bounded) for its report. */
internal fun MessagePump.shutdownAndWait(grace: java.time.Duration = java.time.Duration.ofSeconds(10)): ShutdownReport =
    shutdown(grace).get(TEST_WAIT.inWholeSeconds, TimeUnit.SECONDS)

/** Threads of kotlinx's shared pool, which backs `Dispatchers.IO`, the pumps' default fallback. */
internal fun Thread.isKotlinxWorker(): Boolean = name.startsWith("DefaultDispatcher-worker")

/** Waits (bounded) for a thread to end. */
internal fun Thread.joinBounded() {
    join(TEST_WAIT.inWholeMilliseconds)
    check(!isAlive) { "thread $name still alive after $TEST_WAIT" }
}
