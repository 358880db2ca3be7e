package dev.corobridge.spring

import dev.corobridge.pump.MessagePump
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.currentCoroutineContext
import kotlinx.coroutines.withContext
import kotlin.coroutines.ContinuationInterceptor
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner
import org.springframework.test.web.reactive.server.WebTestClient
import org.springframework.test.web.reactive.server.expectBody
import org.springframework.web.bind.annotation.GetMapping
import org.springframework.web.bind.annotation.RestController
import org.springframework.web.reactive.function.server.HandlerStrategies
import org.springframework.web.reactive.function.server.bodyValueAndAwait
import org.springframework.web.reactive.function.server.coRouter
import org.springframework.web.server.WebFilter
import java.time.Duration

@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SuspendHandlerDispatcherFilterTests {

    private val pump = MessagePump.start("filter-test-pump")

    @RestController
    class WhereController {
        @GetMapping("/where")
        suspend fun where(): String = Thread.currentThread().name

        @GetMapping("/other")
        suspend fun other(): String = Thread.currentThread().name
    }

    /** A consumer's handler: a step on the pump, then code that must not run there. */
    @RestController
    class AfterPumpController(private val pump: MessagePump) {
        @GetMapping("/after-pump")
        suspend fun afterPump(): String {
            val onPump = withContext(pump.dispatcher) { Thread.currentThread().name }
            return "$onPump>${Thread.currentThread().name}"
        }
    }

    private fun client(filter: SuspendHandlerDispatcherFilter?): WebTestClient {
        val spec = WebTestClient.bindToController(WhereController())
        if (filter != null) spec.webFilter<WebTestClient.ControllerSpec>(filter)
        return spec.build().mutate().responseTimeout(Duration.ofSeconds(30)).build()
    }

    private fun WebTestClient.threadOf(path: String): String =
        get().uri(path).exchange().expectStatus().isOk.expectBody<String>().returnResult().responseBody!!

    @Test
    fun `a suspend handler starts on the chosen dispatcher`() {
        val client = client(SuspendHandlerDispatcherFilter(pump.dispatcher))
        assertThat(client.threadOf("/where")).startsWith("filter-test-pump")
    }

    @Test
    fun `requests the filter does not apply to keep Spring's default`() {
        val client = client(SuspendHandlerDispatcherFilter(pump.dispatcher) { it.request.path.value() == "/where" })
        assertThat(client.threadOf("/where")).startsWith("filter-test-pump")
        assertThat(client.threadOf("/other")).doesNotStartWith("filter-test-pump")
        assertThat(client(null).threadOf("/where")).doesNotStartWith("filter-test-pump")
    }

    @Test
    fun `by default code after a step on the pump does not stay on the pump`() {
        val runner = ReactiveWebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(CorobridgeAutoConfiguration::class.java,
                CorobridgeWebFluxAutoConfiguration::class.java))
            .withPropertyValues("corobridge.pump.name=default-test-pump", "corobridge.ring.count=1",
                "corobridge.ring.size=16", "corobridge.ring.force-fallback=true")
        runner.run { ctx ->
            val pump = ctx.getBean(MessagePump::class.java)
            val spec = WebTestClient.bindToController(AfterPumpController(pump))
            // The starter's web filters, as WebFlux would apply them (none on main: Spring's default).
            ctx.getBeanProvider(org.springframework.web.server.WebFilter::class.java).orderedStream().forEach {
                spec.webFilter<WebTestClient.ControllerSpec>(it)
            }
            val client = spec.build().mutate().responseTimeout(Duration.ofSeconds(30)).build()
            repeat(20) {
                val (onPump, after) = client.threadOf("/after-pump").split(">")
                assertThat(onPump).startsWith("default-test-pump")
                assertThat(after).`as`("the handler's code after withContext(pump)").doesNotStartWith("default-test-pump")
            }
        }
        runner.run {
            assertThat(it).hasSingleBean(OffPumpHandlerFilter::class.java)
            assertThat(it.getBean(OffPumpHandlerFilter::class.java).toString()).contains("OffPumpDispatcher")
        }
        // Spring's own default, on request: no filter, the code after the step stays on the pump thread.
        runner.withPropertyValues("corobridge.webflux.suspend-dispatcher=none").run {
            assertThat(it).doesNotHaveBean(SuspendHandlerDispatcherFilter::class.java)
            assertThat(it).doesNotHaveBean(OffPumpHandlerFilter::class.java)
        }
    }

    /**
     * The same guarantee for functional routes: `coRouter {}` starts its handlers in the coroutine
     * context of the exchange attribute the starter's filter sets, as annotated suspend methods.
     */
    @Test
    fun `by default code after a step on the pump does not stay on the pump in a coRouter handler`() {
        val runner = ReactiveWebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(CorobridgeAutoConfiguration::class.java,
                CorobridgeWebFluxAutoConfiguration::class.java))
            .withPropertyValues("corobridge.pump.name=router-test-pump", "corobridge.ring.count=1",
                "corobridge.ring.size=16", "corobridge.ring.force-fallback=true")
        runner.run { ctx ->
            val pump = ctx.getBean(MessagePump::class.java)
            val routes = coRouter {
                GET("/after-pump") {
                    val onPump = withContext(pump.dispatcher) { Thread.currentThread().name }
                    ok().bodyValueAndAwait("$onPump>${Thread.currentThread().name}")
                }
                GET("/dispatcher") { ok().bodyValueAndAwait(currentCoroutineContext()[ContinuationInterceptor].toString()) }
            }
            fun client(filters: List<WebFilter>): WebTestClient {
                val strategies = HandlerStrategies.builder()
                filters.forEach { strategies.webFilter(it) }
                return WebTestClient.bindToRouterFunction(routes).handlerStrategies(strategies.build()).build()
                    .mutate().responseTimeout(Duration.ofSeconds(30)).build()
            }
            val starters = ctx.getBeanProvider(WebFilter::class.java).orderedStream().toList()
            assertThat(starters).anyMatch { it is OffPumpHandlerFilter }
            val client = client(starters)
            repeat(20) {
                val (onPump, after) = client.threadOf("/after-pump").split(">")
                assertThat(onPump).startsWith("router-test-pump")
                assertThat(after).`as`("the coRouter handler's code after withContext(pump)").doesNotStartWith("router-test-pump")
            }
            // The handler runs in the starter's dispatcher; without the filter, in Spring's default, Unconfined
            // (which goes on wherever the last step resumed it: after a pump step, the pump).
            assertThat(client.threadOf("/dispatcher")).startsWith("OffPumpDispatcher[off router-test-pump")
            assertThat(client(emptyList()).threadOf("/dispatcher")).isEqualTo(Dispatchers.Unconfined.toString())
        }
    }

    @Test
    fun `the property registers the filter for the pump or the CPU dispatcher`() {
        val runner = ReactiveWebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(CorobridgeAutoConfiguration::class.java,
                CorobridgeWebFluxAutoConfiguration::class.java))
            .withPropertyValues("corobridge.ring.count=1", "corobridge.ring.size=16", "corobridge.ring.force-fallback=true")
        runner.withPropertyValues("corobridge.webflux.suspend-dispatcher=pump").run {
            assertThat(it).hasSingleBean(SuspendHandlerDispatcherFilter::class.java)
            assertThat(it.getBean(SuspendHandlerDispatcherFilter::class.java).toString())
                .contains(it.getBean(MessagePump::class.java).dispatcher.toString())
        }
        runner.withPropertyValues("corobridge.webflux.suspend-dispatcher=cpu").run {
            assertThat(it).hasSingleBean(SuspendHandlerDispatcherFilter::class.java)
            assertThat(it.getBean(SuspendHandlerDispatcherFilter::class.java).toString())
                .contains(Dispatchers.Default.toString())
        }
    }

    /**
     * The beans follow the value the property binds to, in every spelling Spring's relaxed binding
     * takes for it (`OFF_PUMP`, `offPump`, `Cpu`), as `CorobridgeProperties` binds it. An upper-case
     * `OFF_PUMP` bound to the default but registered no filter: handler code went on on the pump.
     */
    @Test
    fun `the property's beans follow its bound value in every spelling`() {
        val runner = ReactiveWebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(CorobridgeAutoConfiguration::class.java,
                CorobridgeWebFluxAutoConfiguration::class.java))
            .withPropertyValues("corobridge.ring.count=1", "corobridge.ring.size=16", "corobridge.ring.force-fallback=true")
        for (spelling in listOf("off-pump", "OFF_PUMP", "off_pump", "offPump", "Off-Pump")) {
            runner.withPropertyValues("corobridge.webflux.suspend-dispatcher=$spelling").run {
                assertThat(it).`as`(spelling).hasNotFailed()
                assertThat(it).`as`(spelling).hasSingleBean(OffPumpHandlerFilter::class.java)
                assertThat(it).`as`(spelling).doesNotHaveBean(SuspendHandlerDispatcherFilter::class.java)
            }
        }
        for (spelling in listOf("PUMP", "Pump", "CPU", "Cpu")) {
            runner.withPropertyValues("corobridge.webflux.suspend-dispatcher=$spelling").run {
                assertThat(it).`as`(spelling).hasSingleBean(SuspendHandlerDispatcherFilter::class.java)
                assertThat(it).`as`(spelling).doesNotHaveBean(OffPumpHandlerFilter::class.java)
            }
        }
        for (spelling in listOf("none", "NONE")) {
            runner.withPropertyValues("corobridge.webflux.suspend-dispatcher=$spelling").run {
                assertThat(it).`as`(spelling).doesNotHaveBean(SuspendHandlerDispatcherFilter::class.java)
                assertThat(it).`as`(spelling).doesNotHaveBean(OffPumpHandlerFilter::class.java)
            }
        }
        runner.withPropertyValues("corobridge.webflux.suspend-dispatcher=sideways").run {
            assertThat(it).hasFailed()
            assertThat(it.startupFailure).rootCause().hasMessageContaining("sideways")
            assertThat(it.startupFailure.toString() + generateSequence(it.startupFailure as Throwable?) { e -> e.cause }
                .joinToString { e -> e.message.orEmpty() }).contains("corobridge.webflux.suspend-dispatcher")
        }
    }

    @AfterAll
    fun stopPump() {
        pump.shutdown(Duration.ofSeconds(5)).get()
    }
}
