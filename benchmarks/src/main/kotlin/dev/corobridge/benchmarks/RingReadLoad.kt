package dev.corobridge.benchmarks

import dev.corobridge.ring.RingFile
import dev.corobridge.ring.read
import kotlinx.coroutines.CancellableContinuation
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.suspendCancellableCoroutine
import java.nio.ByteBuffer
import java.nio.channels.AsynchronousFileChannel
import java.nio.channels.CompletionHandler
import java.nio.channels.FileChannel
import kotlin.coroutines.resume
import kotlin.coroutines.resumeWithException

/**
 * One reader of RingFileReadBenchmark: its own 4 KiB direct buffer and random position sequence
 * (xorshift, 4 KiB aligned inside the file). [checksum] sums a byte of every block read, so the
 * reads have an effect nothing can optimise away.
 */
class Reader(seed: Long, private val blocks: Long) {
    @JvmField val buf: ByteBuffer = ByteBuffer.allocateDirect(RingReadLoad.BLOCK)
    private var x = seed or 1L
    @JvmField var checksum = 0L
    @JvmField var reads = 0L

    fun nextPosition(): Long {
        x = x xor (x shl 13)
        x = x xor (x ushr 7)
        x = x xor (x shl 17)
        return java.lang.Long.remainderUnsigned(x, blocks) * RingReadLoad.BLOCK
    }

    fun prepare() {
        buf.clear()
    }

    /** Checks one finished read of [n] bytes and takes its byte. */
    fun done(n: Int) {
        if (n != RingReadLoad.BLOCK) throw IllegalStateException("short read: $n bytes instead of ${RingReadLoad.BLOCK}")
        checksum += buf.get(n - 1)
        reads++
    }
}

/** The concurrent read loops of RingFileReadBenchmark; each returns the reads done. */
object RingReadLoad {
    const val BLOCK = 4096

    /**
     * Reader i runs as a coroutine on `dispatchers[i % size]` (a ring's own dispatcher for
     * ring-resident readers, `Dispatchers.Default` otherwise) reading `files[i % size]` with the
     * suspending `RingFile.read`.
     */
    @JvmStatic
    fun ring(files: List<RingFile>, dispatchers: List<CoroutineDispatcher>, readers: List<Reader>, each: Int): Long =
        runBlocking {
            readers.mapIndexed { i, r ->
                val f = files[i % files.size]
                async(dispatchers[i % dispatchers.size]) {
                    repeat(each) {
                        r.prepare()
                        r.done(f.read(r.buf, r.nextPosition()))
                    }
                    each.toLong()
                }
            }.awaitAll().sum()
        }

    /** Coroutines on `Dispatchers.IO`, each calling the blocking `FileChannel.read(buf, pos)`. */
    @JvmStatic
    fun io(channel: FileChannel, readers: List<Reader>, each: Int): Long = runBlocking {
        readers.map { r ->
            async(Dispatchers.IO) {
                repeat(each) {
                    r.prepare()
                    r.done(channel.read(r.buf, r.nextPosition()))
                }
                each.toLong()
            }
        }.awaitAll().sum()
    }

    /** Coroutines on `Dispatchers.Default` suspending on `AsynchronousFileChannel.read`. */
    @JvmStatic
    fun afc(channel: AsynchronousFileChannel, readers: List<Reader>, each: Int): Long = runBlocking {
        readers.map { r ->
            async(Dispatchers.Default) {
                repeat(each) {
                    r.prepare()
                    val pos = r.nextPosition()
                    r.done(suspendCancellableCoroutine { cont -> channel.read(r.buf, pos, cont, Resume) })
                }
                each.toLong()
            }
        }.awaitAll().sum()
    }

    /** One handler for all reads: the continuation travels as the attachment, so nothing is allocated per read. */
    private object Resume : CompletionHandler<Int, CancellableContinuation<Int>> {
        override fun completed(result: Int, cont: CancellableContinuation<Int>) = cont.resume(result)
        override fun failed(exc: Throwable, cont: CancellableContinuation<Int>) = cont.resumeWithException(exc)
    }
}
