package dev.corobridge.demo.web

import dev.corobridge.bridge.HopTrace
import dev.corobridge.demo.BoardService
import kotlinx.coroutines.withContext
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty
import org.springframework.context.annotation.Bean
import org.springframework.context.annotation.Configuration
import org.springframework.http.MediaType
import org.springframework.web.reactive.function.server.RouterFunction
import org.springframework.web.reactive.function.server.ServerResponse
import org.springframework.web.reactive.function.server.bodyValueAndAwait
import org.springframework.web.reactive.function.server.coRouter

/**
 * For benchmarks only, off by default (`demo.bench.functional-snapshot=true`): the Kotlin snapshot
 * `GET /api/kt/boards/{id}` once more as a functional `coRouter {}` route, `GET /api/kt/fn/boards/{id}`,
 * so that `benchmarks/web-load` measures the two ways of writing a Kotlin handler side by side in
 * one service. Same steps and answer as [KotlinBoardController.board]; the difference is the
 * invocation: Spring calls an annotated `suspend` method through kotlin-reflect on every request,
 * a `coRouter` lambda directly (see benchmarks/README.md, "Web demo under load").
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty("demo.bench.functional-snapshot")
class FunctionalSnapshotRoute {

    @Bean
    fun functionalSnapshot(boards: BoardService): RouterFunction<ServerResponse> = coRouter {
        val pump = boards.pump()
        GET("/api/kt/fn/boards/{boardId}") { request ->
            val trace = request.attributes()[HopTraces.ATTRIBUTE] as HopTrace
            val id = JsonInput.boardId(request.pathVariable("boardId"))
            val snapshot = withContext(pump.dispatcher) {
                trace.record(pump.name, "snapshot")
                boards.store().snapshot(id)
            }
            ok().contentType(MediaType.APPLICATION_JSON).bodyValueAndAwait(snapshot)
        }
    }
}
