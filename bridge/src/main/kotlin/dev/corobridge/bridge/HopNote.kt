package dev.corobridge.bridge

import kotlin.coroutines.AbstractCoroutineContextElement
import kotlin.coroutines.CoroutineContext

/**
 * Labels the steps of a coroutine-backed [Task] in its hop trace (the [Hop.note]), the Kotlin
 * counterpart of a Java `thenOn` stage's name:
 *
 * ```
 * val board = scope.task(ui.dispatcher) {
 *     val rows = withContext(Dispatchers.IO + HopNote("load rows")) { store.load(id) }
 *     render(rows)
 * }
 * // board.trace(): ui → Dispatchers.IO ("load rows") → ui
 * ```
 *
 * Entering a block with a different note records a step even on the same thread, so a labelled
 * step always shows. Hops without a note are labelled with the task's name. A note only labels:
 * it changes nothing else about the coroutine. Immutable; safe to share.
 *
 * @property note what the step does, shown after the context in the trace
 */
class HopNote(val note: String) : AbstractCoroutineContextElement(HopNote) {

    /** The key of [HopNote] in a coroutine context. */
    companion object Key : CoroutineContext.Key<HopNote>

    override fun toString() = "HopNote($note)"
}
