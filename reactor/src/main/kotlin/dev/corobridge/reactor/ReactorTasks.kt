@file:JvmName("ReactorTasks")

package dev.corobridge.reactor

import dev.corobridge.bridge.Task
import dev.corobridge.context.ContextPropagation
import kotlinx.coroutines.DelicateCoroutinesApi
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.GlobalScope
import kotlinx.coroutines.async
import kotlinx.coroutines.reactive.awaitFirstOrNull
import kotlinx.coroutines.reactor.asCoroutineContext
import org.reactivestreams.Publisher
import reactor.util.context.Context

// Coroutine plumbing behind TaskMono. Internal: the public API is TaskMono (Java) and TaskMonos.

/**
 * The first element of [publisher] as a task. kotlinx's `awaitFirstOrNull` subscribes, requests
 * one element and cancels after it; the coroutine runs unconfined (on the publisher's signalling
 * thread) in no scope, because the task owns it: cancelling the task cancels the Deferred, which
 * cancels the subscription. The subscription's Reactor Context holds the current thread's
 * registered thread-locals (kotlinx passes a `ReactorContext` in the coroutine context on to it).
 */
@OptIn(DelicateCoroutinesApi::class)
internal fun <T> firstOf(publisher: Publisher<T>): Task<T> {
    val captured = ContextPropagation.capture()
    val reactorContext = captured.writeTo(Context.empty())
    val context = if (reactorContext.isEmpty) Dispatchers.Unconfined else Dispatchers.Unconfined + reactorContext.asCoroutineContext()
    @Suppress("UNCHECKED_CAST") // an empty publisher gives null, the Java API's "no value"
    val deferred = GlobalScope.async(context) { publisher.awaitFirstOrNull() as T }
    return Task.from(deferred)
}
