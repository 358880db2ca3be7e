package dev.corobridge.reactor

import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.reactive.asFlow
import kotlinx.coroutines.reactive.asPublisher
import kotlinx.coroutines.reactor.asFlux
import org.reactivestreams.Publisher
import reactor.core.publisher.Flux
import kotlin.coroutines.EmptyCoroutineContext

// The coroutine plumbing behind FlowPublishers (kotlinx's extensions take `T : Any`, which Java's
// generics cannot express). Internal: Kotlin code calls kotlinx's asFlux / asPublisher / asFlow.

internal object ReactiveFlows {

    @JvmStatic
    fun <T : Any> toFlux(flow: Flow<T>, dispatcher: CoroutineDispatcher?): Flux<T> =
        flow.asFlux(dispatcher ?: EmptyCoroutineContext)

    @JvmStatic
    fun <T : Any> toPublisher(flow: Flow<T>): Publisher<T> = flow.asPublisher()

    @JvmStatic
    fun <T : Any> fromPublisher(publisher: Publisher<T>): Flow<T> = publisher.asFlow()
}
