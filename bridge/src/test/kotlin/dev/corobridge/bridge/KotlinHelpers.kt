package dev.corobridge.bridge

import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Job
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import java.util.concurrent.CountDownLatch
import java.util.concurrent.atomic.AtomicBoolean

/** Kotlin suspend functions and launches for the Java tests to call. */
object KotlinHelpers {
    suspend fun suspendForever(started: CountDownLatch): String {
        started.countDown()
        awaitCancellation()
    }

    suspend fun loadUser(id: String): String {
        delay(1)
        return "user-$id@" + Thread.currentThread().name
    }

    suspend fun failAfterSuspending(message: String): String {
        delay(1)
        throw IllegalStateException(message)
    }

    fun launchChild(scope: CoroutineScope, started: CountDownLatch, cancelled: AtomicBoolean) {
        scope.launch {
            try {
                started.countDown()
                awaitCancellation()
            } finally {
                cancelled.set(true)
            }
        }
    }

    fun childCount(job: Job): Int = job.children.count()
}
