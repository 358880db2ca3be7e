package dev.corobridge.ring

import dev.corobridge.pump.MessagePump
import dev.corobridge.pump.PumpConfig
import kotlinx.coroutines.Job
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import kotlinx.coroutines.CancellationException
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.io.TempDir
import java.io.RandomAccessFile
import java.nio.ByteBuffer
import java.nio.file.Files
import java.nio.file.Path
import java.nio.file.StandardOpenOption.CREATE
import java.nio.file.StandardOpenOption.READ
import java.nio.file.StandardOpenOption.WRITE
import java.time.Duration
import java.util.concurrent.TimeUnit
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertFalse
import kotlin.test.assertSame
import kotlin.test.assertTrue

/** Completions resume where the awaiter lives (invariant 10), and the Kotlin suspend face. */
class RingRoutingTest {
    @TempDir
    lateinit var dir: Path

    private val pool = RingPool.start(RingPoolConfig.builder().name("route").rings(2).build())
    private val ui = MessagePump.start(PumpConfig.builder("route-ui").spinBudget(Duration.ZERO).build())

    @AfterEach
    fun tearDown() {
        ui.shutdown().get(30, TimeUnit.SECONDS)
        pool.shutdown().get(30, TimeUnit.SECONDS)
    }

    @Test
    fun `an awaiter on the pump resumes on the pump, one on the ring resumes inline on the ring`() = runBlocking<Unit> {
        val p = dir.resolve("routing.txt")
        Files.writeString(p, "0123456789")
        val file = pool.open(p, READ)
        val onPump = withContext(ui.dispatcher) {
            val n = file.read(ByteBuffer.allocate(4), 0)
            n to ui.isCurrentThread
        }
        assertEquals(4 to true, onPump)
        val ring = file.ring
        val (before, after) = withContext(ring.dispatcher) {
            val t = Thread.currentThread()
            assertFalse(ring.dispatcher.isDispatchNeeded(coroutineContext), "no hop needed on the ring itself")
            file.read(ByteBuffer.allocateDirect(4), 2)
            t to Thread.currentThread()
        }
        assertSame(before, after)
        assertTrue(ring.isCurrentThread.not())
        file.closeAsync().awaitIo()
    }

    @Test
    fun `a batch of completions bound for the pump costs at most one wake-up`() = runBlocking<Unit> {
        val fifos = (0 until 8).map { RingTestSupport.fifo(dir, "batch$it") }
        val files = fifos.map { pool.open(it, READ, WRITE) }
        val ops = (0 until 64).map { i -> files[i % files.size].readAsync(ByteBuffer.allocateDirect(1), 0) }
        // Not children of a withContext block (it would wait for them): the pump's own scope.
        val jobs: List<Job> = ops.map { op -> ui.scope.launch { op.awaitIo() } }
        // Keep the pump busy while all 64 completions arrive: their resumptions queue up. Count
        // from inside the busy block: the hop into it (and the launches' first dispatch) may each
        // have had to wake the pump, which is not what this test measures.
        var wakeupsBefore = 0L
        withContext(ui.dispatcher) {
            wakeupsBefore = ui.metrics.wakeups()
            fifos.forEach { f -> RandomAccessFile(f.toFile(), "rw").use { it.write(ByteArray(8)) } }
            val deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30)
            while (ops.any { !it.isDone }) {
                check(System.nanoTime() < deadline) { "completions never arrived" }
                Thread.onSpinWait()
            }
        }
        jobs.forEach { it.join() }
        val used = ui.metrics.wakeups() - wakeupsBefore
        assertTrue(used <= 1, "64 completions for the pump cost $used wake-ups")
        assertTrue(ui.metrics.dispatchesPerWakeup() >= 1.0, ui.metrics.toString())
        files.forEach { it.closeAsync().awaitIo() }
    }

    @Test
    fun `cancelling a suspended read waits for the kernel and then rethrows`() = runBlocking<Unit> {
        val fifo = RingTestSupport.fifo(dir, "cancel")
        val file = pool.open(fifo, READ, WRITE)
        val buf = ByteBuffer.allocateDirect(8)
        val job = launch(ui.dispatcher) { file.read(buf, 0) }
        withTimeout(30_000) { while (file.ring.inFlight == 0) delay(1) }
        // The count rises at submit, before the ring's thread takes the read in. Two round trips
        // through that thread: after the first the read has been issued, after the second a loop
        // iteration has handed it to the kernel. So the cancel below is the kernel's to answer,
        // not a withdrawal from the ring's queue.
        repeat(2) { withContext(file.ring.dispatcher) {} }
        job.cancel()
        job.join()
        assertTrue(job.isCancelled)
        assertEquals(0, file.ring.inFlight, "the read left the kernel before the coroutine finished")
        file.closeAsync().awaitIo()
    }

    @Test
    fun `ring dispatcher runs blocks and delays on the ring thread`() = runBlocking<Unit> {
        val ring = pool.rings[1]
        val name = withContext(ring.dispatcher) {
            delay(5)
            Thread.currentThread().name
        }
        assertTrue(name.startsWith("route-1"), name)
        val p = dir.resolve("kotlin.txt")
        val f = pool.open(p, CREATE, WRITE, READ)
        assertEquals(5, f.writeFully(ByteBuffer.wrap("kotln".toByteArray()), 0))
        f.fdatasync()
        assertEquals(5L, f.size())
        f.closeAsync().awaitIo()
        assertFailsWith<RingIoException> { pool.open(dir.resolve("missing")) }
        assertFailsWith<CancellationException> {
            withTimeout(1) { pool.open(RingTestSupport.fifo(dir, "never"), READ).read(ByteBuffer.allocate(1), 0) }
        }
    }
}
