@file:JvmName("TaskMonos")

package dev.corobridge.reactor

import dev.corobridge.bridge.Task
import org.reactivestreams.Publisher
import reactor.core.publisher.Mono
import java.util.concurrent.Executor

/**
 * This task as a [Mono]: its value (empty for `null`), its failure, or its cancellation as an
 * error; disposing a subscription before the task completed cancels the task. See
 * [TaskMono.toMono].
 */
public fun <T : Any> Task<out T?>.asMono(): Mono<T> {
    @Suppress("UNCHECKED_CAST") // a Mono has no null element: a null value is the empty Mono
    return TaskMono.toMono(this as Task<T>)
}

/**
 * This task as a [Mono] whose subscriber is signalled through [answerOn] (in place if [answerOn]
 * refuses: it is shutting down): its value (empty for `null`), its failure, or its cancellation as
 * an error; disposing a subscription before the task completed cancels the task. See
 * [TaskMono.toMono].
 */
public fun <T : Any> Task<out T?>.asMono(answerOn: Executor): Mono<T> {
    @Suppress("UNCHECKED_CAST") // a Mono has no null element: a null value is the empty Mono
    return TaskMono.toMono(this as Task<T>, answerOn)
}

/**
 * The first element of this publisher as a [Task], `null` if it completes empty; cancelling the
 * task cancels the subscription. See [TaskMono.toTask]; from a coroutine, kotlinx's
 * `awaitFirstOrNull()` suspends without a task.
 */
public fun <T> Publisher<T>.asTask(): Task<T?> = TaskMono.toTask(this)
