@file:JvmName("SubscriberContexts")

package dev.corobridge.reactor

import dev.corobridge.bridge.internal.UncaughtFailures
import dev.corobridge.context.ContextPropagation
import dev.corobridge.context.PropagatedContext
import dev.corobridge.reactor.internal.SubscriberContext
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.currentCoroutineContext
import kotlinx.coroutines.reactor.ReactorContext
import kotlinx.coroutines.withContext
import kotlin.coroutines.intrinsics.startCoroutineUninterceptedOrReturn
import kotlin.coroutines.intrinsics.suspendCoroutineUninterceptedOrReturn

/**
 * Runs [block] with the thread-bound context of the coroutine's Reactor subscriber (its
 * [ReactorContext]) restored at every step, and returns its result: the suspending twin of
 * [ReactorContexts.with], for a coroutine that a Reactor subscription started (Spring's `coRouter`
 * handlers, kotlinx's `mono {}`), where Reactor's automatic context propagation is off (Spring Boot's
 * default) and the request's MDC and trace are therefore on no thread.
 *
 * ```
 * coRouter {
 *     GET("/api/hello") {
 *         withSubscriberContext {
 *             log.info("hello")                                  // the request's MDC and trace are set
 *             val greeting = Task.start(pump) { greet() }.await() // and the task carries them
 *             ok().bodyValueAndAwait(greeting)
 *         }
 *     }
 * }
 * ```
 *
 * It does what `withContext(PropagatedContext(ReactorContexts.capture(reactorContext)), block)` does,
 * with one opening of the context instead of two: the subscriber's values are set on the thread
 * once, captured there, and [block]'s first step runs inside that same opening (its restore finds
 * every value in place and sets nothing); later steps restore the captured values as any
 * [PropagatedContext] does. An opening costs the registered accessors' `setValue` and `restore`;
 * for an `Observation`, opening and closing its scope, which its tracing handler turns into span and
 * MDC changes. Without a [ReactorContext] in the coroutine context, or with an empty one, the
 * calling thread's current values are carried instead, as `PropagatedContext()` carries them.
 *
 * Everything else is `withContext`'s: [block] runs in place (no dispatch), in the caller's job
 * (cancelling the caller cancels it), and its result or exception is the call's. When opening the
 * subscriber's values fails (a registered accessor's `setValue` throws), the values set before it are
 * put back and the call throws that exception without running [block]. A failure while the thread's
 * own values are put back after the first step does not change the outcome: every other value is
 * still put back, and the failure is reported to `Tasks.uncaughtFailureHandler()` (or added as
 * suppressed to the block's exception when the first step threw).
 *
 * Needs `io.micrometer:context-propagation` on the class path to read the subscriber's values, as
 * Reactor's own propagation does; without it the calling thread's values are carried. Safe from any
 * coroutine; the values are set only on the threads [block]'s steps run on, and each thread's own
 * values are back when a step ends.
 */
public suspend fun <T> withSubscriberContext(block: suspend CoroutineScope.() -> T): T {
    val subscriber = currentCoroutineContext()[ReactorContext]?.context
    if (subscriber == null || subscriber.isEmpty || !ContextPropagation.isEnabled()) {
        return withContext(PropagatedContext(ContextPropagation.capture()), block)
    }
    return suspendCoroutineUninterceptedOrReturn { caller ->
        // The first step runs while the subscriber's values are set: the step's restore finds them in
        // place. They are put back when the step suspends or ends (its start returns then).
        val opened = SubscriberContext.open(subscriber) // a refused value: thrown, the block never runs
        val firstStep: Any?
        try {
            val captured = ContextPropagation.capture()
            val body: suspend () -> T = { withContext(PropagatedContext(captured), block) }
            firstStep = body.startCoroutineUninterceptedOrReturn(caller)
        } catch (e: Throwable) { // the block failed in its first step: that is the call's outcome
            putBack(opened, e)
            throw e
        }
        putBack(opened, null)
        firstStep
    }
}

/**
 * Puts the thread's own values back after the first step. A failure there does not change the
 * block's outcome (it may have suspended, and then the call must not fail as well as resume later):
 * it is added to [failure], or reported to `Tasks.uncaughtFailureHandler()`, as a step's put-back is.
 */
private fun putBack(opened: Any?, failure: Throwable?) {
    try {
        SubscriberContext.close(opened)
    } catch (e: Throwable) {
        if (failure != null) failure.addSuppressed(e) else UncaughtFailures.report(null, e)
    }
}
