package dev.corobridge.bridge.internal

import dev.corobridge.bridge.TaskThreadContext
import dev.corobridge.context.CapturedContext
import dev.corobridge.context.PropagatedContext
import kotlinx.coroutines.Job
import kotlin.coroutines.Continuation
import kotlin.coroutines.CoroutineContext

/**
 * The context a dispatched coroutine resumption restores when it runs, read before it runs: for a
 * loop that runs consecutive resumptions of one context inside one restore of it (the pump), so
 * that each resumption's own restore finds its values in place and sets nothing. Not public API.
 *
 * A resumption is recognised as kotlinx hands it to a dispatcher: a [Runnable] that is also the
 * [Continuation] it resumes, whose context holds the task's element ([TaskThreadContext]) or a
 * [PropagatedContext] (not both). None is reported — so the loop puts its own values back first —
 * for anything else, and for the resumption of a `withContext` block that kotlinx started without
 * a dispatch (its context holds kotlinx's `UndispatchedMarker`): when such a block completes,
 * kotlinx puts the block's context back and goes on to run the caller in the same dispatched task,
 * and the caller must not find the block's values. If that marker cannot be found (another kotlinx),
 * nothing is ever reported.
 *
 * Thread-safety: stateless; safe from any thread.
 */
public object CarriedContexts {

    @Suppress("UNCHECKED_CAST")
    private val undispatchedMarker: CoroutineContext.Key<CoroutineContext.Element>? = try {
        val marker = Class.forName("kotlinx.coroutines.UndispatchedMarker", true, Job::class.java.classLoader)
        val instance = marker.getField("INSTANCE").also { it.isAccessible = true }.get(null)
        instance as? CoroutineContext.Key<CoroutineContext.Element>
    } catch (e: Throwable) {
        null // another kotlinx, or no access: never report a context
    }

    /** Whether resumptions can be recognised here at all. */
    @JvmStatic
    public val available: Boolean get() = undispatchedMarker != null

    /** The context [task] restores when it runs, or null when it is not a recognised resumption (see the class comment). */
    @JvmStatic
    public fun of(task: Runnable?): CapturedContext? {
        val marker = undispatchedMarker ?: return null
        if (task !is Continuation<*>) return null
        val context = task.context
        val element = context[TaskThreadContext]
        val propagated = context[PropagatedContext]
        val captured = when {
            element != null && propagated != null -> return null
            element != null -> element.captured
            else -> propagated?.captured
        }
        if (captured == null || captured.isEmpty) return null // the usual dispatch without a context: two lookups
        return if (context[marker] != null) null else captured
    }
}
