package dev.corobridge.reactor

import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import java.util.concurrent.CountDownLatch
import java.util.concurrent.atomic.AtomicInteger

/** Kotlin flows for the Java tests, with counters that show how far they ran. */
object ReactorTestFlows {

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
}
