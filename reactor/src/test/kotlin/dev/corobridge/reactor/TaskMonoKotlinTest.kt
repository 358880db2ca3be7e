package dev.corobridge.reactor

import dev.corobridge.bridge.Task
import dev.corobridge.bridge.await
import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Test
import reactor.core.publisher.Flux
import reactor.core.publisher.Mono
import java.time.Duration
import java.util.concurrent.CompletableFuture
import java.util.concurrent.Executors
import java.util.concurrent.atomic.AtomicBoolean
import kotlin.test.assertEquals
import kotlin.test.assertNull
import kotlin.test.assertTrue

/** The Kotlin extensions: `task.asMono()` and `publisher.asTask()`. */
class TaskMonoKotlinTest {

    @Test
    fun `task asMono emits the value and disposing cancels the task`() {
        assertEquals("cf", Task.from(CompletableFuture.completedFuture("cf")).asMono().block(Duration.ofSeconds(30)))
        val pending = Task.from(CompletableFuture<String>())
        pending.asMono().subscribe().dispose()
        assertTrue(pending.outcomeOrNull()!!.isCancelled)
    }

    @Test
    fun `task asMono answerOn signals through the executor`() {
        val answerOn = Executors.newSingleThreadExecutor { Thread(it, "answer-on") }
        try {
            val thread = Task.completed("v").asMono(answerOn).map { Thread.currentThread().name }
                .block(Duration.ofSeconds(30))
            assertEquals("answer-on", thread)
            val pending = Task.from(CompletableFuture<String>())
            pending.asMono(answerOn).subscribe().dispose()
            assertTrue(pending.outcomeOrNull()!!.isCancelled)
        } finally {
            answerOn.shutdownNow()
        }
    }

    @Test
    fun `publisher asTask takes the first element and cancelling it cancels the subscription`() = runBlocking<Unit> {
        assertEquals("first", Flux.just("first", "second").asTask().await())
        assertNull(Mono.empty<String>().asTask().await())
        val cancelled = AtomicBoolean()
        val never = Flux.never<String>().doOnCancel { cancelled.set(true) }.asTask()
        never.cancel()
        assertTrue(cancelled.get())
    }
}
