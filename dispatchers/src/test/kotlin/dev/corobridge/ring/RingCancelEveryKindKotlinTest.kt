package dev.corobridge.ring

import dev.corobridge.pump.ManualPump
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.SupervisorJob
import kotlinx.coroutines.cancel
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.io.TempDir
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.EnumSource
import java.net.InetAddress
import java.net.InetSocketAddress
import java.net.Socket
import java.nio.ByteBuffer
import java.nio.file.Files
import java.nio.file.Path
import java.util.concurrent.CompletableFuture
import java.util.concurrent.LinkedBlockingQueue
import java.util.concurrent.TimeUnit
import kotlin.test.assertEquals
import kotlin.test.assertNotNull
import kotlin.test.assertTrue

/**
 * Issue 12, item 4, from Kotlin: cancelling the coroutine that awaits any kind of ring operation
 * cancels the operation (in the kernel or the transport) and returns, and whatever completes for an
 * awaiter that has left — a connection, an accepted socket, an opened file — is closed.
 *
 * "Completed in the same instant the caller was cancelled" is staged with a [ManualPump]: the
 * operation succeeds and its resumption waits in the pump's queue; the coroutine is cancelled before
 * the pump runs it, so it resumes with the cancellation and the value is its awaiter's no longer.
 */
class RingCancelEveryKindKotlinTest {

    @TempDir
    lateinit var dir: Path

    private val loopback = InetSocketAddress(InetAddress.getLoopbackAddress(), 0)

    @ParameterizedTest
    @EnumSource(Transport::class)
    fun `a cancelled connect is aborted in the kernel and the coroutine returns at once`(transport: Transport) {
        val pool = RingTestSupport.pool(transport)
        try {
            RingCancelEveryKindTest.FullBacklog().use { peer ->
                val scope = CoroutineScope(SupervisorJob())
                val job = scope.launch { pool.connect(peer.address()) }
                RingTestSupport.waitUntil({ peer.others(RingTestSupport.TCP_SYN_SENT).size == 1 }, "the connect in SYN_SENT")
                job.cancel()
                RingTestSupport.waitUntil({ job.isCompleted }, "the cancelled connect to return")
                peer.makeRoom() // a connect still alive in the kernel would now get through and stay open
                RingTestSupport.waitUntil({ peer.connectingOrConnected() == 0 }, "no socket of ours connecting or connected to the peer")
            }
        } finally {
            pool.shutdown().get(60, TimeUnit.SECONDS)
        }
    }

    @ParameterizedTest
    @EnumSource(Transport::class)
    fun `a cancelled socket write aborts the connection and the coroutine returns`(transport: Transport) {
        val pool = RingTestSupport.pool(transport)
        val accepted = LinkedBlockingQueue<RingConnection>()
        try {
            runBlocking {
                val server = pool.bind(loopback) { accepted.add(it) }
                val client = pool.connect(server.localAddress)
                val session = assertNotNull(accepted.poll(30, TimeUnit.SECONDS))
                val n = 32 shl 20 // more than the socket buffers hold: the peer never reads
                val job = CoroutineScope(SupervisorJob()).launch { client.write(ByteBuffer.allocateDirect(n), n) }
                RingTestSupport.waitUntil({ RingTestSupport.tcpUnread(port(session.localAddress), port(session.remoteAddress)) > 0 },
                    "bytes to reach the peer")
                job.cancel()
                RingTestSupport.waitUntil({ job.isCompleted }, "the cancelled write to return")
                assertTrue(!client.isOpen, "the stream was cut mid-write: the connection is aborted")
                session.closeAsync().awaitIo()
                server.close()
            }
        } finally {
            pool.shutdown().get(60, TimeUnit.SECONDS)
        }
    }

    @ParameterizedTest
    @EnumSource(Transport::class)
    fun `a cancelled socket read returns at once and its bytes go to the next read`(transport: Transport) {
        val pool = RingTestSupport.pool(transport)
        val accepted = LinkedBlockingQueue<RingConnection>()
        try {
            runBlocking {
                val server = pool.bind(loopback) { accepted.add(it) }
                val client = pool.connect(server.localAddress)
                val session = assertNotNull(accepted.poll(30, TimeUnit.SECONDS))
                val first = ByteBuffer.allocate(8)
                val job = CoroutineScope(SupervisorJob()).launch { session.read(first.clear()) }
                RingTestSupport.waitUntil({ session.readPending() }, "the read to wait for data")
                job.cancel()
                RingTestSupport.waitUntil({ job.isCompleted }, "the cancelled read to return")
                client.write(ByteBuffer.wrap(byteArrayOf(7, 8, 9)), 3)
                val second = ByteBuffer.allocate(8)
                assertEquals(3, session.read(second.clear()))
                assertEquals(9, second.get(2).toInt())
                assertEquals(0, first.get(0).toInt(), "the cancelled read's buffer was never written")
                client.closeAsync().awaitIo()
                session.closeAsync().awaitIo()
                server.close()
            }
        } finally {
            pool.shutdown().get(60, TimeUnit.SECONDS)
        }
    }

    @ParameterizedTest
    @EnumSource(Transport::class)
    fun `a file opened for an awaiter that has left is closed`(transport: Transport) {
        val pool = RingTestSupport.pool(transport)
        val ui = ManualPump.create("open-ui")
        try {
            val p = Files.writeString(dir.resolve("opened"), "x")
            val job = CoroutineScope(ui.dispatcher).launch { pool.open(p) }
            LoopHold(pool, null).use { ui.runUntilIdle() } // the open departs; the coroutine waits for it
            RingTestSupport.waitUntil({ pool.metrics.openFiles() == 1 }, "the open to succeed")
            // The file is counted before the open's outcome is settled and its resumption queued: a
            // cancel in between takes the path that waits on this pump for the outcome, after the
            // test has stopped running the pump. Cancel once the resumption waits for the pump.
            RingTestSupport.waitUntil({ ui.metrics.queueDepth() > 0 }, "the open's result to wait for the pump")
            job.cancel() // before the pump runs the resumption
            ui.runUntilIdle()
            assertTrue(job.isCancelled)
            RingTestSupport.waitUntil({ pool.metrics.openFiles() == 0 }, "the file nobody awaits any more to be closed")
        } finally {
            ui.shutdown()
            pool.shutdown().get(60, TimeUnit.SECONDS)
        }
    }

    @ParameterizedTest
    @EnumSource(Transport::class)
    fun `a connection made for an awaiter that has left is closed`(transport: Transport) {
        val pool = RingTestSupport.pool(transport)
        val ui = ManualPump.create("connect-ui")
        val accepted = LinkedBlockingQueue<RingConnection>()
        try {
            val server = runBlocking { pool.bind(loopback) { accepted.add(it) } }
            val job = CoroutineScope(ui.dispatcher).launch { pool.connect(server.localAddress) }
            LoopHold(pool, null).use { ui.runUntilIdle() } // the connect departs; the coroutine waits for it
            val session = assertNotNull(accepted.poll(30, TimeUnit.SECONDS))
            RingTestSupport.waitUntil({ ui.metrics.queueDepth() > 0 }, "the connect's result to wait for the pump")
            job.cancel()
            ui.runUntilIdle()
            assertTrue(job.isCancelled)
            // The client side was closed: the server's read sees the end.
            assertEquals(-1, runBlocking { session.read(ByteBuffer.allocate(8)) })
            session.closeAsync()
            server.close()
        } finally {
            ui.shutdown()
            pool.shutdown().get(60, TimeUnit.SECONDS)
        }
    }

    @ParameterizedTest
    @EnumSource(Transport::class)
    fun `serve stops with its scope, and a connection accepted for a cancelled scope is closed`(transport: Transport) {
        val pool = RingTestSupport.pool(transport)
        try {
            val scope = CoroutineScope(SupervisorJob())
            val sessions = LinkedBlockingQueue<Int>()
            val server = runBlocking { pool.serve(loopback, scope) { sessions.add(1) } }
            val address = server.localAddress
            val client: Socket
            LoopHold(pool, null).use {
                // The kernel accepts this while the rings are held; the scope is cancelled before any
                // ring can hand the connection to it.
                client = Socket(address.address, address.port)
                scope.cancel()
            }
            val end = CompletableFuture<Int>()
            Thread.ofVirtual().start {
                end.complete(runCatching { client.getInputStream().read() }.getOrDefault(-1))
            }
            assertEquals(-1, end.get(30, TimeUnit.SECONDS), "the connection was closed, not left open unowned")
            client.close()
            assertTrue(sessions.isEmpty(), "no session runs in a cancelled scope")
            RingTestSupport.waitUntil({ server.isClosed }, "the server to close with its scope")
            RingTestSupport.waitUntil({ runCatching { Socket(address.address, address.port).close() }.isFailure },
                "nothing to listen on the address any more")
        } finally {
            pool.shutdown().get(60, TimeUnit.SECONDS)
        }
    }

    @ParameterizedTest
    @EnumSource(Transport::class)
    fun `a cancelled bind returns at once and nothing listens`(transport: Transport) {
        val pool = RingTestSupport.pool(transport)
        try {
            val port = java.net.ServerSocket(0, 1, InetAddress.getLoopbackAddress()).use { it.localPort }
            val address = InetSocketAddress(InetAddress.getLoopbackAddress(), port)
            val scope = CoroutineScope(SupervisorJob())
            LoopHold(pool, null).use {
                // Undispatched: the bind departs before launch returns, and the coroutine waits for it.
                val job = scope.launch(start = CoroutineStart.UNDISPATCHED) { pool.bind(address) { it.closeAsync() } }
                assertTrue(job.isActive, "the rings are held: the bind cannot be done yet")
                job.cancel()
                RingTestSupport.waitUntil({ job.isCompleted }, "the cancelled bind to return while the rings are held")
            }
            RingCancelEveryKindTest.passedBy(pool.rings[0])
            RingCancelEveryKindTest.passedBy(pool.rings[1])
            assertTrue(runCatching { Socket(address.address, port).close() }.isFailure, "nothing listens: a server bound anyway was closed")
        } finally {
            pool.shutdown().get(60, TimeUnit.SECONDS)
        }
    }

    private fun port(a: java.net.SocketAddress): Int = (a as InetSocketAddress).port
}
