package dev.corobridge.bridge

import kotlinx.coroutines.CoroutineName
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.yield
import kotlin.coroutines.coroutineContext

/** A Kotlin service as a Java caller meets it: no-argument suspend functions to pass as `obj::fn`. */
class SuspendService(private val user: String) {
    /** Suspends once, then returns the user and the thread it resumed on. */
    suspend fun currentUser(): String {
        yield()
        return "$user@" + Thread.currentThread().name
    }

    /** A generic result type: what a Java method reference must infer without a witness. */
    suspend fun roles(): List<String> {
        yield()
        return listOf("reader", "writer")
    }

    /** Fails after suspending. */
    suspend fun refuse(): String {
        yield()
        throw IllegalStateException("refused $user")
    }

    /** Suspends until cancelled. */
    suspend fun hang(): String = awaitCancellation()

    /** The name of the coroutine that runs it. */
    suspend fun coroutineName(): String = coroutineContext[CoroutineName]?.name ?: "unnamed"
}
