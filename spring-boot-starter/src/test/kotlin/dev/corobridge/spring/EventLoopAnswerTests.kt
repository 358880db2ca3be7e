package dev.corobridge.spring

import dev.corobridge.bridge.Task
import dev.corobridge.pump.MessagePump
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.reactor.mono
import kotlinx.coroutines.withContext
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner
import org.springframework.http.server.reactive.ReactorHttpHandlerAdapter
import org.springframework.mock.http.server.reactive.MockServerHttpRequest
import org.springframework.mock.web.server.MockServerWebExchange
import org.springframework.web.server.CoWebFilter
import org.springframework.web.server.ServerWebExchange
import org.springframework.web.server.WebFilter
import org.springframework.web.server.WebHandler
import org.springframework.web.server.adapter.WebHttpHandlerBuilder
import reactor.core.publisher.Mono
import reactor.netty.http.client.HttpClient
import reactor.netty.http.server.HttpServer
import java.nio.charset.StandardCharsets
import java.time.Duration
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import kotlin.coroutines.CoroutineContext

/**
 * A handler's answer goes back to the request's Netty event loop: for a `Task` completed on the pump
 * ([EventLoopAnswerFilter] and the `Task` adapter) and for a Kotlin suspend handler after a step on
 * the pump ([EventLoopOffPumpDispatchers]). Runs a real Reactor Netty server on a free port, since
 * only a Reactor Netty request has an event loop; every handler answers with the names of the
 * threads it saw, so the assertions need no timing.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EventLoopAnswerTests {

    private val pump = MessagePump.start("answer-test-pump")

    /**
     * Answers "request-thread>answer-thread" for a task completed on the pump, always after WebFlux
     * would have subscribed: the pump is held by a gate until the adapter's Mono has registered on
     * the task (a task already complete at subscription is delivered in place, on the loop).
     */
    private val taskHandler = WebHandler { exchange ->
        val requestThread = Thread.currentThread().name
        val gate = CountDownLatch(1)
        Task.start(pump) { gate.await(30, TimeUnit.SECONDS) }
        val task = Task.start(pump) { "pump" }
        Mono.create { sink ->
            TaskReactiveAdapters.toMono(task).contextWrite(sink.contextView()).subscribe(sink::success, sink::error)
            gate.countDown() // registered: the task completes on the pump only now
        }.flatMap { _: String -> write(exchange, "$requestThread>${Thread.currentThread().name}") }
    }

    /** As WebFlux starts a suspend handler: in the context the filters stored, after Unconfined. */
    private val suspendHandler = WebHandler { exchange ->
        val context = exchange.attributes[CoWebFilter.COROUTINE_CONTEXT_ATTRIBUTE] as CoroutineContext?
        mono(context ?: Dispatchers.Unconfined) {
            val requestThread = Thread.currentThread().name
            val onPump = withContext(pump.dispatcher) { Thread.currentThread().name }
            "$requestThread>$onPump>${Thread.currentThread().name}"
        }.flatMap { write(exchange, it) }
    }

    private fun write(exchange: ServerWebExchange, text: String): Mono<Void> {
        val response = exchange.response
        return response.writeWith(Mono.just(response.bufferFactory().wrap(text.toByteArray(StandardCharsets.UTF_8))))
    }

    /** Serves [handler] behind [filters] on a free port, GETs it [times] times, returns the answers. */
    private fun answers(handler: WebHandler, vararg filters: WebFilter, times: Int = 20): List<String> {
        val httpHandler = WebHttpHandlerBuilder.webHandler(handler).filters { it.addAll(filters) }.build()
        val server = HttpServer.create().host("127.0.0.1").port(0).handle(ReactorHttpHandlerAdapter(httpHandler)).bindNow()
        try {
            val client = HttpClient.create().baseUrl("http://127.0.0.1:${server.port()}")
            return (1..times).map {
                client.get().uri("/").responseContent().aggregate().asString().block(Duration.ofSeconds(30))!!
            }
        } finally {
            server.disposeNow(Duration.ofSeconds(30))
        }
    }

    @Test
    fun `without the filter a task completed on the pump is answered from the pump`() {
        // The state before EventLoopAnswerFilter: WebFlux encoded and wrote on the pump thread.
        answers(taskHandler).forEach { assertThat(it.substringAfter('>')).startsWith("answer-test-pump") }
    }

    @Test
    fun `with the filter a task completed on the pump is answered on the request's event loop`() {
        answers(taskHandler, EventLoopAnswerFilter()).forEach {
            val (requestThread, answerThread) = it.split('>')
            assertThat(answerThread).`as`(it).isEqualTo(requestThread)
        }
    }

    @Test
    fun `off-pump to the event loop resumes a suspend handler on the request's loop, never on the pump`() {
        val filter = OffPumpHandlerFilter(EventLoopOffPumpDispatchers(pump, OffPumpDispatcher(pump, Dispatchers.Default)))
        answers(suspendHandler, filter).forEach {
            val (requestThread, onPump, after) = it.split('>')
            assertThat(onPump).startsWith("answer-test-pump")
            assertThat(after).`as`(it).isEqualTo(requestThread)
        }
    }

    @Test
    fun `a request without an event loop gets the fallback dispatcher`() {
        val elsewhere = OffPumpDispatcher(pump, Dispatchers.Default)
        val exchange = MockServerWebExchange.from(MockServerHttpRequest.get("/"))
        assertThat(RequestEventLoops.of(exchange)).isNull()
        assertThat(EventLoopOffPumpDispatchers(pump, elsewhere).apply(exchange)).isSameAs(elsewhere)
    }

    @Test
    fun `the starter registers the answer filter and the event-loop off-pump choice unless switched off`() {
        val runner = ReactiveWebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(CorobridgeAutoConfiguration::class.java,
                CorobridgeWebFluxAutoConfiguration::class.java))
            .withPropertyValues("corobridge.pump.name=config-test-pump", "corobridge.ring.count=1",
                "corobridge.ring.size=16", "corobridge.ring.force-fallback=true")
        runner.run {
            assertThat(it).hasSingleBean(EventLoopAnswerFilter::class.java)
            assertThat(it.getBean(OffPumpHandlerFilter::class.java).toString()).contains("EventLoopOffPumpDispatchers")
        }
        runner.withPropertyValues("corobridge.webflux.answer-on-event-loop=false").run {
            assertThat(it).doesNotHaveBean(EventLoopAnswerFilter::class.java)
            assertThat(it.getBean(OffPumpHandlerFilter::class.java).toString())
                .doesNotContain("EventLoopOffPumpDispatchers").contains("OffPumpDispatcher")
        }
    }

    /**
     * The filter follows the value the property binds to, in every spelling Spring's conversion
     * takes for a boolean (`on`, `yes`, `1`, `off`, `no`, `0`): `on` bound to true but registered
     * no answer filter, while the off-pump choice read it as true.
     */
    @Test
    fun `the answer filter follows the property's bound value in every spelling`() {
        val runner = ReactiveWebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(CorobridgeAutoConfiguration::class.java,
                CorobridgeWebFluxAutoConfiguration::class.java))
            .withPropertyValues("corobridge.pump.name=config-test-pump", "corobridge.ring.count=1",
                "corobridge.ring.size=16", "corobridge.ring.force-fallback=true")
        for (spelling in listOf("true", "TRUE", "on", "yes", "1")) {
            runner.withPropertyValues("corobridge.webflux.answer-on-event-loop=$spelling").run {
                assertThat(it).`as`(spelling).hasSingleBean(EventLoopAnswerFilter::class.java)
                assertThat(it.getBean(OffPumpHandlerFilter::class.java).toString()).`as`(spelling).contains("EventLoopOffPumpDispatchers")
            }
        }
        for (spelling in listOf("false", "off", "no", "0")) {
            runner.withPropertyValues("corobridge.webflux.answer-on-event-loop=$spelling").run {
                assertThat(it).`as`(spelling).doesNotHaveBean(EventLoopAnswerFilter::class.java)
                assertThat(it.getBean(OffPumpHandlerFilter::class.java).toString()).`as`(spelling)
                    .doesNotContain("EventLoopOffPumpDispatchers")
            }
        }
    }

    @AfterAll
    fun stopPump() {
        pump.shutdown(Duration.ofSeconds(5)).get()
    }
}
