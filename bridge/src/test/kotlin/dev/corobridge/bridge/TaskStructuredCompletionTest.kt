package dev.corobridge.bridge

import kotlinx.coroutines.CoroutineExceptionHandler
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Test
import java.util.concurrent.ConcurrentLinkedQueue
import java.util.concurrent.atomic.AtomicBoolean
import kotlin.test.assertEquals
import kotlin.test.assertSame

/**
 * Structured concurrency as kotlinx keeps it, for tasks: once the scope a `task {}` ran in has
 * returned (a `coroutineScope`, or a Java `TaskScope`'s `joinAll()`), the task is decided, as an
 * `async`'s Deferred is; and a Kotlin child failing in a `TaskScope` goes to `joinAll()` only, as
 * a child of `coroutineScope` goes to its caller only, never also to an exception handler.
 */
class TaskStructuredCompletionTest {

    @Test
    fun `a task is decided once the coroutineScope it ran in has returned`() = runBlocking {
        val rounds = 50_000
        var undecided = 0
        repeat(rounds) { i ->
            val ending = AtomicBoolean()
            val t: Task<Int> = coroutineScope {
                val t = task(Dispatchers.Default) { ending.set(true); i }
                while (!ending.get()) Thread.onSpinWait() // the scope's body ends as the child ends
                t
            }
            if (!t.isDone) undecided++ // resultNow() would throw "not complete"
            else assertEquals(i, t.resultNow())
        }
        assertEquals(0, undecided, "tasks still pending after their coroutineScope returned, of $rounds")
    }

    @Test
    fun `a Kotlin task of a TaskScope is decided once joinAll returned`() {
        val rounds = 20_000
        var undecided = 0
        repeat(rounds) { i ->
            TaskScope.open("kotlin-children").use { scope ->
                val t = scope.scope.task(Dispatchers.Default) { i }
                scope.joinAll()
                if (!t.isDone) undecided++
            }
        }
        assertEquals(0, undecided, "tasks still pending after joinAll() returned, of $rounds")
    }

    private class Boom(message: String) : RuntimeException(message)

    @Test
    fun `a Kotlin child failing in a TaskScope is rethrown by joinAll and reported nowhere else`() {
        repeat(50) {
            val handled = ConcurrentLinkedQueue<Throwable>()
            val handler = CoroutineExceptionHandler { _, e -> handled.add(e) }
            val boom = Boom("kotlin child")
            val scope = TaskScope.open("failing-child")
            scope.scope.launch(Dispatchers.Default + handler) { throw boom }
            val rethrown = runCatching { scope.joinAll() }.exceptionOrNull()
            scope.close()
            assertSame(boom, rethrown)
            assertEquals(emptyList(), handled.toList(), "the failure joinAll() rethrew was also handed to the handler")
        }
    }
}
