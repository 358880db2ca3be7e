package dev.corobridge.examples

import dev.corobridge.bridge.Task
import dev.corobridge.bridge.await
import dev.corobridge.reactor.asTask
import dev.corobridge.reactor.asMono
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
    // snippet-end: reactor-kotlin
}
