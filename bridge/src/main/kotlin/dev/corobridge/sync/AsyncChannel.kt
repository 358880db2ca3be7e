@file:JvmName("AsyncChannels")

package dev.corobridge.sync

import dev.corobridge.stream.handOffFlow
import dev.corobridge.stream.emitEachTaken
import dev.corobridge.stream.Next
import kotlinx.coroutines.flow.Flow

// Kotlin face of AsyncChannel. Unlike plain kotlinx channel operations, a cancelled send or
// receive never loses or duplicates an element: see AsyncChannel and ChannelSuspension.

/**
 * Sends [element], suspending while the channel is full. If the coroutine is cancelled while
 * waiting, the send is withdrawn (`CancellationException`, nothing sent) unless the element was
 * already taken — then it returns normally. Resumes on the caller's dispatcher.
 *
 * @throws kotlinx.coroutines.channels.ClosedSendChannelException if the channel is closed
 */
public suspend fun <T : Any> AsyncChannel<T>.send(element: T): Unit = ChannelSuspension.send(core, element)

/**
 * Receives the next element, suspending while the channel is empty. If the coroutine is cancelled
 * while waiting, the receive is withdrawn (`CancellationException`, nothing taken) unless an element
 * was already handed to it — then it returns that element. Resumes on the caller's dispatcher.
 *
 * @throws kotlinx.coroutines.channels.ClosedReceiveChannelException once closed and drained
 */
public suspend fun <T : Any> AsyncChannel<T>.receive(): T =
    ChannelSuspension.receive<T>(core) // typed: no null check after the call, so a tail call

/** [receive] with the end as a value: [Next.Value], [Next.End] or [Next.Failed]. */
public suspend fun <T : Any> AsyncChannel<T>.next(): Next<T> = ChannelSuspension.next(core)

/** [receive], or `null` once the channel is closed and drained; rethrows a close cause. */
public suspend fun <T : Any> AsyncChannel<T>.receiveOrNull(): T? = ChannelSuspension.receiveOrNull(core)

/**
 * The elements as a hot [Flow] (each element goes to one collector): completes when the channel is
 * closed and drained (or cancelled), fails with a close cause.
 *
 * Stopping the collection never loses an element in this flow: an element it took from the channel
 * is passed to the collector's `emit` even if the collection is cancelled in that instant, and a
 * cancelled collection takes no further element, so the rest stays in the channel. (A downstream
 * operator that drops elements when cancelled — one built on `flow { }`, a `buffer` — is beyond
 * this promise: collect directly, or loop on [receive], where it matters.)
 */
public fun <T : Any> AsyncChannel<T>.receiveAsFlow(): Flow<T> = handOffFlow {
    emitEachTaken { ChannelSuspension.next(core) }
}
