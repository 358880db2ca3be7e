package dev.corobridge.ring

import dev.corobridge.pump.ManualPump
import dev.corobridge.pump.MessagePump
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.SupervisorJob
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.cancel
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.EnumSource
import java.io.ByteArrayOutputStream
import java.net.InetAddress
import java.net.InetSocketAddress
import java.nio.ByteBuffer
import java.util.concurrent.TimeUnit
import kotlin.random.Random
import kotlin.test.assertContentEquals
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertTrue

/** The same echo with suspending sessions: server coroutines on the rings, clients on the pump. */
class RingSocketKotlinTest {

    /**
     * Issue 12, item 5: `serve` called on the pump suspends until the address is bound instead of
     * blocking the pump. A ManualPump runs the coroutine on the test thread while every ring is held
     * busy: a serve that blocked would not give the thread back.
     */
    @ParameterizedTest
    @EnumSource(Transport::class)
    fun `serve on the pump suspends while binding and never blocks it`(transport: Transport) {
        val pool = RingTestSupport.pool(transport)
        val ui = ManualPump.create("serve-ui")
        val serverScope = CoroutineScope(SupervisorJob())
        try {
            var server: RingServer? = null
            val started = CoroutineScope(ui.dispatcher).launch {
                server = pool.serve(InetSocketAddress(InetAddress.getLoopbackAddress(), 0), serverScope) { conn ->
                    val buf = ByteBuffer.allocate(64)
                    val n = conn.read(buf.clear())
                    if (n > 0) conn.write(buf, n)
                }
            }
            LoopHold(pool, null).use { hold ->
                ui.runUntilIdle() // runs the coroutine up to its first suspension: the bind in flight
                assertFalse(hold.expired(), "serve blocked the pump until the rings were free")
                assertFalse(started.isCompleted, "the rings are held: the bind cannot be done yet")
            }
            RingTestSupport.waitUntil({ ui.runUntilIdle(); started.isCompleted }, "serve to return on the pump")
            val bound = checkNotNull(server)
            runBlocking {
                val conn = pool.connect(bound.localAddress)
                val out = ByteBuffer.allocate(3).put(byteArrayOf(1, 2, 3))
                conn.write(out, 3)
                val back = ByteBuffer.allocate(3)
                assertEquals(3, conn.read(back.clear()))
                conn.closeAsync().awaitIo()
            }
            bound.close()
        } finally {
            serverScope.cancel()
            ui.shutdown()
            pool.shutdown().get(30, TimeUnit.SECONDS)
        }
    }

    @ParameterizedTest
    @EnumSource(Transport::class)
    fun `suspending echo sessions on the rings, clients awaiting on the pump`(transport: Transport) = runBlocking<Unit> {
        val pool = RingTestSupport.pool(transport)
        val ui = MessagePump.start("echo-ui")
        val serverScope = CoroutineScope(SupervisorJob())
        try {
            val server = pool.serve(InetSocketAddress(InetAddress.getLoopbackAddress(), 0), serverScope) { conn ->
                val buf = ByteBuffer.allocate(2048)
                while (true) {
                    val n = conn.read(buf.clear())
                    if (n <= 0) break
                    check(conn.ring.isCurrentThread) { "a ring session resumes on its ring" }
                    conn.write(buf, n)
                }
            }
            withTimeout(120_000) {
                (0 until 100).map { i ->
                    async(ui.dispatcher) {
                        val data = Random(i).nextBytes(4000 + i * 31)
                        val conn = pool.connect(server.localAddress)
                        val reader = async(ui.dispatcher) {
                            val got = ByteArrayOutputStream()
                            val inBuf = ByteBuffer.allocate(1500)
                            while (true) {
                                val n = conn.read(inBuf.clear())
                                check(ui.isCurrentThread) { "a client on the pump resumes on the pump" }
                                if (n <= 0) break
                                got.write(inBuf.array(), 0, n)
                            }
                            got.toByteArray()
                        }
                        val out = ByteBuffer.allocate(700)
                        var off = 0
                        while (off < data.size) {
                            val n = minOf(700, data.size - off)
                            out.clear().put(data, off, n)
                            conn.write(out, n)
                            off += n
                        }
                        conn.shutdownOutput()
                        assertContentEquals(data, reader.await())
                        conn.closeAsync().awaitIo()
                        true
                    }
                }.awaitAll()
            }
            server.close()
            assertTrue(true)
        } finally {
            serverScope.cancel()
            ui.shutdown().get(30, TimeUnit.SECONDS)
            pool.shutdown().get(30, TimeUnit.SECONDS)
        }
    }
}
