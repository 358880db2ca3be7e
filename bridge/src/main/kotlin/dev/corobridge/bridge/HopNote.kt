package dev.corobridge.bridge

import dev.corobridge.bridge.internal.ContextNames
import dev.corobridge.bridge.internal.NotedExecutor
import kotlinx.coroutines.CoroutineDispatcher
import java.util.concurrent.Executor
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
 * // board.trace: ui → Dispatchers.IO ("load rows") → ui
 * ```
 *
 * Entering a block with a different note records a step even on the same thread, so a labelled
 * step always shows. Hops without a note are labelled with the task's name. A note only labels:
 * it changes nothing else about the coroutine. Immutable; safe to share.
 *
 * From Java, [HopNote.on] labels a stage of a chain the same way:
 * `task.thenOn(HopNote.on(pool, "render"), v -> render(v))`.
 *
 * @property note what the step does, shown after the context in the trace
 */
public class HopNote(public val note: String) : AbstractCoroutineContextElement(HopNote) {

    /** The key of [HopNote] in a coroutine context, and the Java face of labelling. */
    public companion object Key : CoroutineContext.Key<HopNote> {

        /**
         * [executor] with its steps labelled [note] in hop traces: `Task.start(HopNote.on(ui,
         * "apply"), ...)`, `task.thenOn(HopNote.on(pool, "render"), ...)`. The steps run on
         * [executor] as before and show under its context name.
         */
        @JvmStatic
        public fun on(executor: Executor, note: String): Executor = NotedExecutor(executor, note)

        /** [on] for a coroutine dispatcher, from Java: `task.thenOn(HopNote.on(Dispatchers.getDefault(), "render"), ...)`. */
        @JvmStatic
        public fun on(dispatcher: CoroutineDispatcher, note: String): Executor = NotedExecutor(ContextNames.executorOf(dispatcher), note)
    }

    override fun toString(): String = "HopNote($note)"
}
