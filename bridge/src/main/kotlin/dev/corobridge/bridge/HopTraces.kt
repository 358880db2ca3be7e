@file:JvmName("HopTraces")

package dev.corobridge.bridge

import kotlin.coroutines.CoroutineContext

/**
 * A coroutine context element that records every hop of the coroutine it is added to — and of its
 * `withContext` blocks and children — into this trace, as a coroutine-backed [Task] records into its
 * own: one step per start or resume on another thread, dispatcher or [HopNote], named after the
 * context, labelled with the innermost [HopNote] or else [note]. For code that keeps a trace of its
 * own, such as a web request's:
 *
 * ```
 * withContext(requestTrace.recordingHops("kotlin face")) {
 *     val board = withContext(pump.dispatcher + HopNote("snapshot")) { store.snapshot(id) }
 *     ...
 * }
 * ```
 * Recording changes no thread state; it carries no context (add a `PropagatedContext` for that).
 * It adds to what the coroutine already records, never replaces it: inside a task (`scope.task {}`,
 * `Task.startSuspend`, `TaskScope.fork`) the block keeps the task's context, trace and observation
 * and records into this trace as well; inside another `recordingHops` block it records into both
 * traces (for the same trace, the innermost note labels the hops); a task started inside the
 * block keeps its own trace and records into this one too. Thread-safe: see [HopTrace].
 */
public fun HopTrace.recordingHops(note: String): CoroutineContext.Element = TaskThreadContext(this, note, null, null)
