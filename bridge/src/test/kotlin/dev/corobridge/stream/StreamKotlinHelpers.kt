package dev.corobridge.stream

import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import java.util.concurrent.CountDownLatch
import java.util.concurrent.atomic.AtomicInteger

/** Kotlin generators and flows for the Java tests, with counters that show how far they ran. */
object StreamKotlinHelpers {
    /** An infinite generator of squares; [steps] counts the elements it computed. */
    @JvmStatic
    fun squares(steps: AtomicInteger): Sequence<Long> = sequence {
        var i = 1L
        while (true) {
            steps.incrementAndGet()
            yield(i * i)
            i++
        }
    }

    @JvmStatic
    fun countdown(from: Int): Iterator<Int> = iterator {
        for (i in from downTo 1) yield(i)
    }

    /** A flow of "0".."[n]-1" that then fails with [error]; [failed] completes as it throws. */
    @JvmStatic
    fun failingAfter(n: Int, error: Throwable, failed: java.util.concurrent.CompletableFuture<Void>): Flow<String> = flow {
        repeat(n) { emit(it.toString()) }
        failed.complete(null)
        throw error
    }

    /** An infinite flow 1, 2, 3...; [emitted] counts emissions, [finished] counts down when it stops. */
    @JvmStatic
    fun naturals(emitted: AtomicInteger, finished: CountDownLatch): Flow<Int> = flow {
        try {
            var i = 1
            while (true) {
                emitted.incrementAndGet()
                emit(i++)
            }
        } finally {
            finished.countDown()
        }
    }

    @JvmStatic
    fun threeThenFail(): Flow<String> = flow {
        emit("a")
        emit("b")
        emit("c")
        throw IllegalStateException("flow failed")
    }

    @JvmStatic
    fun finite(n: Int): Flow<Int> = flow { for (i in 1..n) emit(i) }

    @JvmStatic
    fun never(): Flow<Int> = flow { awaitCancellation() }
}
