@file:JvmName("ReactorTasks")

package dev.corobridge.reactor

import dev.corobridge.bridge.Task
import kotlinx.coroutines.DelicateCoroutinesApi
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.GlobalScope
import kotlinx.coroutines.async
import kotlinx.coroutines.reactive.awaitFirstOrNull
import org.reactivestreams.Publisher

// Coroutine plumbing behind TaskMono. Internal: the public API is TaskMono (Java) and TaskMonoKt.

/**
 * The first element of [publisher] as a task. kotlinx's `awaitFirstOrNull` subscribes, requests
 * one element and cancels after it; the coroutine runs unconfined (on the publisher's signalling
 * thread) in no scope, because the task owns it: cancelling the task cancels the Deferred, which
 * cancels the subscription.
 */
@OptIn(DelicateCoroutinesApi::class)
internal fun <T> firstOf(publisher: Publisher<T>): Task<T> {
    @Suppress("UNCHECKED_CAST") // an empty publisher gives null, the Java API's "no value"
    val deferred = GlobalScope.async(Dispatchers.Unconfined) { publisher.awaitFirstOrNull() as T }
    return Task.fromDeferred(deferred)
}
