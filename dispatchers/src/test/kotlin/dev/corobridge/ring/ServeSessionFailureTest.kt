package dev.corobridge.ring

import dev.corobridge.bridge.Tasks
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineExceptionHandler
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Job
import kotlinx.coroutines.cancel
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.junit.jupiter.api.Test
import java.net.InetAddress
import java.net.InetSocketAddress
import java.net.Socket
import java.nio.ByteBuffer
import java.util.concurrent.CopyOnWriteArrayList
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertTrue

/**
 * A session of `pool.serve` that fails (a routine peer reset, a bug) ends its own connection only:
 * the server goes on accepting and the other sessions go on, in a scope with a plain `Job` too,
 * and the failure goes to the scope's `CoroutineExceptionHandler`, else to the uncaught failure handler.
 */
class ServeSessionFailureTest {

    private suspend fun echo(conn: RingConnection) {
        val buf = ByteBuffer.allocate(8192)
        while (true) {
            val n = conn.read(buf.clear())
            if (n <= 0) break
            conn.write(buf, n)
        }
    }

    @Test
    fun `one client's reset ends its session, not the server or the other sessions`() = runBlocking<Unit> {
        val pool = RingTestSupport.pool(Transport.IO_URING)
        val reported = CopyOnWriteArrayList<Throwable>()
        val previous = Tasks.setUncaughtFailureHandler { _, e -> reported.add(e) }
        val scope = CoroutineScope(Job()) // not a SupervisorJob: the README's example
        try {
            val ended = CopyOnWriteArrayList<Throwable?>()
            val firstEnded = CompletableDeferred<Unit>()
            val server = pool.serve(InetSocketAddress(InetAddress.getLoopbackAddress(), 0), scope) { conn ->
                try {
                    echo(conn)
                    ended.add(null)
                } catch (e: Throwable) {
                    ended.add(e)
                    throw e
                } finally {
                    firstEnded.complete(Unit)
                }
            }
            val port = server.localAddress.port
            Socket(InetAddress.getLoopbackAddress(), port).use { good ->
                good.soTimeout = 30_000
                good.getOutputStream().write(1)
                assertEquals(1, good.getInputStream().read())
                Socket(InetAddress.getLoopbackAddress(), port).apply {
                    getOutputStream().write(9)
                    setSoLinger(true, 0)
                    close() // a reset
                }
                withTimeout(30_000) { firstEnded.await() }
                RingTestSupport.waitUntil({ reported.isNotEmpty() }, "the failed session's report")
                assertTrue(reported.single() is RingIoException, reported.toString())
                assertFalse(server.isClosed, "the server was closed because one client reset its connection")
                assertTrue(scope.coroutineContext[Job]!!.isActive, "the scope was cancelled by one session's failure")
                good.getOutputStream().write(2)
                assertEquals(2, good.getInputStream().read(), "an unrelated client's session was ended")
            }
        } finally {
            Tasks.setUncaughtFailureHandler(previous)
            scope.cancel()
            RingTestSupport.stop(pool)
        }
    }

    @Test
    fun `a failing session goes to the scope's exception handler when it has one`() = runBlocking<Unit> {
        val pool = RingTestSupport.pool(Transport.FALLBACK)
        val handled = CompletableDeferred<Throwable>()
        val scope = CoroutineScope(Job() + CoroutineExceptionHandler { _, e -> handled.complete(e) })
        try {
            val server = pool.serve(InetSocketAddress(InetAddress.getLoopbackAddress(), 0), scope) {
                throw IllegalStateException("a bug in the session")
            }
            Socket(InetAddress.getLoopbackAddress(), server.localAddress.port).use { peer ->
                peer.soTimeout = 30_000
                assertEquals(-1, peer.getInputStream().read(), "the failed session's connection is closed")
            }
            assertEquals("a bug in the session", withTimeout(30_000) { handled.await() }.message)
            assertFalse(server.isClosed)
        } finally {
            scope.cancel()
            RingTestSupport.stop(pool)
        }
    }
}
