package dev.corobridge.spring

import kotlinx.coroutines.CoroutineDispatcher
import org.springframework.core.Ordered
import org.springframework.web.server.CoWebFilter
import org.springframework.web.server.ServerWebExchange
import java.util.function.Function
import org.springframework.web.server.WebFilter
import org.springframework.web.server.WebFilterChain
import reactor.core.publisher.Mono
import kotlin.coroutines.CoroutineContext

/**
 * Runs Kotlin `suspend` WebFlux handler methods and `coRouter {}` handlers on the dispatcher
 * [dispatcherFor] picks for the request (an [OffPumpDispatcher] by default: to the request's Netty
 * event loop with [EventLoopOffPumpDispatchers], else to the CPU dispatcher), at the price of one
 * attribute per request: no coroutine, no hop.
 *
 * How: WebFlux starts a suspend handler method, and a functional `coRouter {}` route its handler,
 * in the coroutine context stored in the exchange attribute
 * [CoWebFilter.COROUTINE_CONTEXT_ATTRIBUTE] (which [CoWebFilter]s set). This filter adds
 * the chosen dispatcher to that context, or stores it when there is none, and calls the chain.
 * Unlike [SuspendHandlerDispatcherFilter], which wraps the rest of the chain in `withContext` (a
 * coroutine per request, for every request, suspend handler or not), it costs requests that reach
 * a Java handler only the choice (a map lookup) and the attribute.
 *
 * Ordered last, so that the context of every [CoWebFilter] before it (security, MDC, ...) is kept
 * and only its dispatcher is replaced. A [CoWebFilter] ordered after it stores its own context and
 * so undoes this one: order such filters earlier.
 *
 * Thread-safety: immutable ([dispatcherFor] must be safe to call from any thread); the attribute is
 * set on the request's own exchange.
 */
class OffPumpHandlerFilter(private val dispatcherFor: Function<ServerWebExchange, CoroutineDispatcher>) : WebFilter, Ordered {

    /** The same [dispatcher] for every request. */
    constructor(dispatcher: CoroutineDispatcher) : this(SameDispatcher(dispatcher))

    override fun filter(exchange: ServerWebExchange, chain: WebFilterChain): Mono<Void> {
        val dispatcher = dispatcherFor.apply(exchange)
        val attributes = exchange.attributes
        val context = attributes[CoWebFilter.COROUTINE_CONTEXT_ATTRIBUTE] as CoroutineContext?
        attributes[CoWebFilter.COROUTINE_CONTEXT_ATTRIBUTE] = context?.plus(dispatcher) ?: dispatcher
        return chain.filter(exchange)
    }

    override fun getOrder(): Int = Ordered.LOWEST_PRECEDENCE

    /** Made once: WebFlux's filter chain asks for it on every request (its checkpoint description). */
    private val description = "OffPumpHandlerFilter[$dispatcherFor]"

    override fun toString(): String = description

    /** A named constant choice, so that [toString] says which dispatcher it is. */
    private class SameDispatcher(private val dispatcher: CoroutineDispatcher) : Function<ServerWebExchange, CoroutineDispatcher> {
        override fun apply(exchange: ServerWebExchange): CoroutineDispatcher = dispatcher
        override fun toString(): String = dispatcher.toString()
    }
}
