package dev.corobridge.examples

import dev.corobridge.bridge.Task
import dev.corobridge.bridge.await
import dev.corobridge.reactor.asTask
import dev.corobridge.reactor.asMono
import dev.corobridge.reactor.withSubscriberContext
import kotlinx.coroutines.reactor.mono
import org.reactivestreams.Publisher
import reactor.core.publisher.Mono
import java.util.concurrent.Executor

/** The reactor README's Kotlin example, compiled. */
class ReactorKotlin {

    // snippet-begin: reactor-kotlin
    fun answer(count: Task<Int>, eventLoop: Executor): Mono<Int> =
        count.asMono(eventLoop)                                  // or count.asMono()

    suspend fun firstName(names: Publisher<String>): String? =
        names.asTask().await()                                   // kotlinx's awaitFirstOrNull() needs no task

    fun traced(names: Publisher<String>): Mono<String> = mono {   // or a coRouter handler
        withSubscriberContext {                                  // the subscriber's MDC and trace,
            names.asTask().await()                               // set at every resume and carried on
        }
    }
    // snippet-end: reactor-kotlin
}
