package dev.corobridge.stream

import kotlinx.coroutines.currentCoroutineContext
import kotlinx.coroutines.ensureActive
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.FlowCollector

// The flows of the channel faces (AsyncChannel.receiveAsFlow, the event-stream flows): an element
// taken from the channel is handed to the collector, never dropped between the two.

/**
 * A flow whose collection runs [block] with the downstream collector itself, for loops of
 * [emitEachTaken].
 *
 * Not `flow { }`: its collector checks for cancellation at the start of every `emit` and throws
 * there, after the element was taken from the channel, so the element would reach no one. kotlinx's
 * own `receiveAsFlow` is not a `flow { }` either. Like any flow, this one keeps the flow rules:
 * [block] emits from the collecting coroutine only (context preservation) and lets whatever `emit`
 * throws pass through (exception transparency).
 */
internal inline fun <T> handOffFlow(crossinline block: suspend FlowCollector<T>.() -> Unit): Flow<T> =
    object : Flow<T> {
        override suspend fun collect(collector: FlowCollector<T>) = collector.block()
    }

/**
 * Emits every element that [take] takes, until [Next.End]; rethrows the error of [Next.Failed].
 *
 * **An element taken is emitted.** [take] is a channel face's receive ([awaitDecided]): if the
 * collecting coroutine is cancelled while it waits, it withdraws the receive unless an element was
 * already handed to it, and then returns that element, which is passed to `emit` at once. The
 * cancellation is checked *before* each take, never between a take and its `emit`, so a
 * cancelled collection stops without taking the next element: it stays in the channel for the
 * next receiver. (kotlinx's `receive` instead drops an element handed over as its receiver is
 * cancelled, see `onUndeliveredElement`.) What the collector does with an element emitted in a
 * cancelled coroutine is the collector's affair: a `collect { }` block gets it; a downstream
 * operator that checks for cancellation before passing it on (one built on `flow { }`, or a
 * `buffer`) may still drop it.
 */
internal suspend fun <T> FlowCollector<T>.emitEachTaken(take: suspend () -> Next<T>) {
    while (true) {
        currentCoroutineContext().ensureActive()
        when (val n = take()) {
            is Next.Value -> emit(n.value())
            is Next.End -> return
            is Next.Failed -> throw n.error()
        }
    }
}
