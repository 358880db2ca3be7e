package dev.corobridge.spring

import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.withContext
import org.springframework.web.server.CoWebFilter
import org.springframework.web.server.CoWebFilterChain
import org.springframework.web.server.ServerWebExchange

/**
 * Starts Kotlin `suspend` WebFlux handler methods on [dispatcher] for the requests [applies] to.
 *
 * How: Spring's [CoWebFilter] stores the coroutine context in which the rest of the chain is called
 * in the exchange attribute [CoWebFilter.COROUTINE_CONTEXT_ATTRIBUTE], and WebFlux's
 * `InvocableHandlerMethod` starts a suspend handler method in that context. This filter calls the
 * rest of the chain inside `withContext(dispatcher)`, so the handler's first line runs on the
 * dispatcher (for the pump: on the pump thread). Requests it does not apply to keep Spring's default
 * (`Dispatchers.Unconfined`: the handler starts on the Netty thread).
 *
 * Not registered by default: declare it as a bean, or set `corobridge.webflux.suspend-dispatcher`
 * (`pump` or `cpu`) to have one for every request. Order it early (it is a [CoWebFilter]; an earlier
 * filter's context is the base the dispatcher is added to). The filters after it are also called
 * from the dispatcher, which for the pump means their assembly work runs on the pump thread.
 */
class SuspendHandlerDispatcherFilter @JvmOverloads constructor(
    private val dispatcher: CoroutineDispatcher,
    private val applies: (ServerWebExchange) -> Boolean = { true },
) : CoWebFilter() {

    override suspend fun filter(exchange: ServerWebExchange, chain: CoWebFilterChain) {
        if (applies(exchange)) {
            withContext(dispatcher) { chain.filter(exchange) }
        } else {
            chain.filter(exchange)
        }
    }

    override fun toString(): String = "SuspendHandlerDispatcherFilter[$dispatcher]"
}
