package dev.corobridge.reactor

import dev.corobridge.reactor.internal.RuleCheckedPublisher
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.map
import kotlinx.coroutines.reactive.asFlow
import kotlinx.coroutines.reactor.asFlux
import org.reactivestreams.Publisher
import reactor.core.publisher.Flux
import kotlin.coroutines.EmptyCoroutineContext

// The coroutine plumbing behind FlowPublishers (kotlinx's extensions take `T : Any`, which Java's
// generics cannot express). Internal: Kotlin code calls kotlinx's asFlux / asPublisher / asFlow.

internal object ReactiveFlows {

    @JvmStatic
    fun <T : Any> toFlux(flow: Flow<T?>, dispatcher: CoroutineDispatcher?): Flux<T> =
        flow.nonNull().asFlux(dispatcher ?: EmptyCoroutineContext)

    /**
     * A Flux, as a plain Publisher: kotlinx's `asPublisher` ignores a request of zero or less,
     * which must fail the subscription with an IllegalArgumentException (rule 3.9); the Flux does.
     */
    @JvmStatic
    fun <T : Any> toPublisher(flow: Flow<T?>): Publisher<T> = toFlux(flow, null)

    @JvmStatic
    fun <T : Any> fromPublisher(publisher: Publisher<T>): Flow<T> = RuleCheckedPublisher(publisher).asFlow()

    /** Java can hand over a flow of nullable elements: a null fails it, as Reactive Streams carries none (rule 2.13). */
    private fun <T : Any> Flow<T?>.nonNull(): Flow<T> = map {
        it ?: throw NullPointerException("the flow emitted a null element, which Reactive Streams forbids (rule 2.13)")
    }
}
