package dev.corobridge.benchmarks

import dev.corobridge.bridge.await
import dev.corobridge.sync.AsyncChannel
import dev.corobridge.sync.AsyncMutex
import dev.corobridge.sync.AsyncReadWriteMutex
import dev.corobridge.sync.receive
import dev.corobridge.sync.receiveOrNull
import dev.corobridge.sync.send
import dev.corobridge.sync.withLock
import dev.corobridge.sync.withReadLock
import dev.corobridge.sync.withWriteLock
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.Job
import kotlinx.coroutines.cancel
import kotlinx.coroutines.channels.Channel
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.yield
import kotlinx.coroutines.sync.Mutex
import kotlinx.coroutines.sync.withLock as kotlinxWithLock

// Coroutine sides of SyncChannelPingPongBenchmark, SyncMutexBenchmark and SyncReadWriteMutexBenchmark. Everything runs on
// Dispatchers.Default; the JMH thread only waits (runBlocking) for one batch of operations.

/** Ping-pong over two kotlinx rendezvous channels: an echo coroutine and a pinging coroutine. */
class KotlinxPingPong : AutoCloseable {
    private val ping = Channel<Int>()
    private val pong = Channel<Int>()
    private val scope = CoroutineScope(Dispatchers.Default + Job())

    init {
        scope.launch { for (x in ping) pong.send(x) }
    }

    fun roundTrips(n: Int): Int = runBlocking(Dispatchers.Default) {
        var sum = 0
        repeat(n) {
            ping.send(it)
            sum += pong.receive()
        }
        sum
    }

    override fun close() {
        ping.close()
        scope.cancel()
    }
}

/** Ping-pong over two AsyncChannels, both sides coroutines using the Kotlin face (suspend). */
class KotlinFacePingPong : AutoCloseable {
    private val ping = AsyncChannel.rendezvous<Int>()
    private val pong = AsyncChannel.rendezvous<Int>()
    private val scope = CoroutineScope(Dispatchers.Default + Job())

    init {
        scope.launch {
            while (true) pong.send(ping.receiveOrNull() ?: break)
        }
    }

    fun roundTrips(n: Int): Int = runBlocking(Dispatchers.Default) {
        var sum = 0
        repeat(n) {
            ping.send(it)
            sum += pong.receive()
        }
        sum
    }

    override fun close() {
        ping.close()
        scope.cancel()
    }
}

/**
 * Ping-pong over two AsyncChannels through the Java face (each operation an Awaitable), with
 * coroutines awaiting it: the cost of the face itself, on the same scheduler as the baseline.
 */
class JavaFaceCoroutinePingPong : AutoCloseable {
    private val ping = AsyncChannel.rendezvous<Int>()
    private val pong = AsyncChannel.rendezvous<Int>()
    private val scope = CoroutineScope(Dispatchers.Default + Job())

    init {
        scope.launch {
            while (true) {
                val n = ping.nextAsync().await()
                if (!n.hasValue()) break
                pong.sendAsync(n.value()).await()
            }
        }
    }

    fun roundTrips(n: Int): Int = runBlocking(Dispatchers.Default) {
        var sum = 0
        repeat(n) {
            ping.sendAsync(it).await()
            sum += pong.receiveAsync().await()
        }
        sum
    }

    override fun close() {
        ping.close()
        scope.cancel()
    }
}

/**
 * [workers] coroutines each locking a mutex [ops] times, incrementing a counter and yielding while
 * holding it (so the other coroutines really queue up for it), then unlocking; returns the counter.
 */
object MutexLoads {
    @JvmStatic
    fun kotlinx(mutex: Mutex, workers: Int, ops: Int): Long = runBlocking(Dispatchers.Default) {
        val counter = LongArray(1)
        coroutineScope {
            repeat(workers) {
                launch { repeat(ops) { mutex.kotlinxWithLock { counter[0]++; yield() } } }
            }
        }
        counter[0]
    }

    @JvmStatic
    fun kotlinFace(mutex: AsyncMutex, workers: Int, ops: Int): Long = runBlocking(Dispatchers.Default) {
        val counter = LongArray(1)
        coroutineScope {
            repeat(workers) {
                launch { repeat(ops) { mutex.withLock { counter[0]++; yield() } } }
            }
        }
        counter[0]
    }

    @JvmStatic
    fun javaFace(mutex: AsyncMutex, workers: Int, ops: Int): Long = runBlocking(Dispatchers.Default) {
        val counter = LongArray(1)
        coroutineScope {
            repeat(workers) {
                launch {
                    repeat(ops) {
                        mutex.lockAsync().await()
                        try {
                            counter[0]++
                            yield()
                        } finally {
                            mutex.unlock()
                        }
                    }
                }
            }
        }
        counter[0]
    }
}

/**
 * The coroutine sides of SyncReadWriteMutexBenchmark: [workers] coroutines on Dispatchers.Default,
 * each taking the lock [ops] times — [readersPerWriter] reads for every write, as
 * `SyncReadWriteMutexBenchmark.writes` spreads them — and yielding while holding it. Returns the
 * sum of what the reads saw plus the cells, so that nothing can be optimised away.
 */
object ReadWriteLoads {
    @JvmStatic
    fun kotlinFace(rw: AsyncReadWriteMutex, cells: LongArray, workers: Int, ops: Int, readersPerWriter: Int): Long =
        runBlocking(Dispatchers.Default) {
            val seen = LongArray(workers)
            coroutineScope {
                repeat(workers) { worker ->
                    launch {
                        repeat(ops) { i ->
                            if (SyncReadWriteMutexBenchmark.writes(worker, i, readersPerWriter)) {
                                rw.withWriteLock { cells[i % cells.size]++; yield() }
                            } else {
                                rw.withReadLock { seen[worker] += SyncReadWriteMutexBenchmark.read(cells); yield() }
                            }
                        }
                    }
                }
            }
            seen.sum() + SyncReadWriteMutexBenchmark.read(cells)
        }

    @JvmStatic
    fun kotlinx(mutex: Mutex, cells: LongArray, workers: Int, ops: Int, readersPerWriter: Int): Long =
        runBlocking(Dispatchers.Default) {
            val seen = LongArray(workers)
            coroutineScope {
                repeat(workers) { worker ->
                    launch {
                        repeat(ops) { i ->
                            if (SyncReadWriteMutexBenchmark.writes(worker, i, readersPerWriter)) {
                                mutex.kotlinxWithLock { cells[i % cells.size]++; yield() }
                            } else {
                                mutex.kotlinxWithLock { seen[worker] += SyncReadWriteMutexBenchmark.read(cells); yield() }
                            }
                        }
                    }
                }
            }
            seen.sum() + SyncReadWriteMutexBenchmark.read(cells)
        }
}
