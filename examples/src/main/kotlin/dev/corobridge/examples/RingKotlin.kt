package dev.corobridge.examples

import dev.corobridge.bridge.await
import dev.corobridge.pump.MessagePump
import dev.corobridge.ring.RingPool
import dev.corobridge.ring.awaitIo
import dev.corobridge.ring.connect
import dev.corobridge.ring.open
import dev.corobridge.ring.read
import dev.corobridge.ring.readFully
import dev.corobridge.ring.serve
import dev.corobridge.ring.size
import dev.corobridge.ring.write
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.withContext
import java.net.InetSocketAddress
import java.nio.ByteBuffer
import java.nio.file.Path

/** The dispatchers README's Kotlin example, compiled: ring files and sockets as suspend functions. */
class RingKotlin(private val ui: MessagePump, private val io: RingPool) {

    // snippet-begin: dispatchers-kotlin
    suspend fun firstLine(path: Path): String {
        val file = io.open(path)                                   // read-only; suspends, never blocks
        try {
            val buf = ByteBuffer.allocate(minOf(file.size(), 4096L).toInt())
            file.readFully(buf, 0)                                 // cancelled: the kernel lets go first
            return String(buf.array(), 0, buf.position()).lineSequence().first()
        } finally {
            file.closeAsync().await()
        }
    }

    suspend fun echoServer(scope: CoroutineScope, port: Int) =
        io.serve(InetSocketAddress(port), scope) { conn ->          // a coroutine per connection, on its ring
            val buf = ByteBuffer.allocate(8192)
            while (true) {
                val n = conn.read(buf.clear())
                if (n <= 0) break
                conn.write(buf, n)
            }
        }

    suspend fun overlapped(path: Path): Int {
        val file = io.open(path)
        val a = file.readAsync(ByteBuffer.allocate(512), 0)         // the Java member: departs now
        val b = file.readAsync(ByteBuffer.allocate(512), 512)
        val n = a.awaitIo() + b.awaitIo()                           // the ring's await (see the table)
        file.closeAsync().await()
        return withContext(ui.dispatcher) { n }
    }
    // snippet-end: dispatchers-kotlin

    /** A client for [echoServer]. */
    suspend fun ping(port: Int): Int {
        val conn = io.connect(InetSocketAddress("127.0.0.1", port))
        try {
            conn.write(ByteBuffer.wrap(byteArrayOf(1)), 1)
            return conn.read(ByteBuffer.allocate(1))
        } finally {
            conn.closeAsync().await()
        }
    }
}
