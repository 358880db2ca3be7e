@file:JvmName("RingSockets")

package dev.corobridge.ring

import dev.corobridge.bridge.internal.UncaughtFailures
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CoroutineExceptionHandler
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Job
import kotlinx.coroutines.launch
import java.net.InetSocketAddress
import java.nio.ByteBuffer
import kotlin.coroutines.CoroutineContext

// The Kotlin face of ring sockets: session code reads
//     while (true) { val n = conn.read(buf.clear()); if (n <= 0) break; conn.write(buf, n) }
// Closing: RingConnection.close() is the blocking AutoCloseable close (a member: it wins over any
// extension); coroutines use closeAsync().await(), and pool.serve closes for them.

/**
 * Reads into `[position, limit)` of [buf] and moves its position by the count (as
 * `ReadableByteChannel.read`); 0 if it has no room, -1 at end of stream.
 */
public suspend fun RingConnection.read(buf: ByteBuffer): Int = readAsync(buf).awaitIo()

/** Sends `buf[0, n)` and waits until it is flushed. */
public suspend fun RingConnection.write(buf: ByteBuffer, n: Int): Int = writeAsync(buf, n).awaitIo()

/** Half-closes: the peer's reads see the end; reading continues. */
public suspend fun RingConnection.shutdownOutput() { shutdownOutputAsync().awaitIo() }

/** Connects from one of the pool's rings. */
public suspend fun RingPool.connect(address: InetSocketAddress): RingConnection = connectAsync(address).awaitIo()

/**
 * Binds [address] and hands every accepted connection to [onAccept] on its ring's thread (see
 * [RingServer]). Suspends until bound; never blocks a thread, so it may be called on the pump.
 */
public suspend fun RingPool.bind(address: InetSocketAddress, onAccept: (RingConnection) -> Unit): RingServer =
    bindAsync(address, onAccept).awaitIo()

/**
 * Serves [address]: every accepted connection runs [session] as a coroutine in [scope] on the
 * connection's own ring (so its reads resume inline on that ring); the connection is closed when the
 * session ends, however it ends — also when the scope was cancelled before the session could start.
 * The server lives as long as the scope: once the scope's job completes or is cancelled, it is closed
 * (no connection is accepted for a scope that cannot run it). Suspends until the address is bound
 * (never blocking a thread: it may be called on the pump).
 *
 * A session that fails (a peer's reset, a bug) ends its own connection only, as one connection's
 * failure does in a Netty server: it does not cancel [scope], so the server and the other sessions
 * go on. The failure goes to the scope's `CoroutineExceptionHandler` if it has one, else to
 * `Tasks.uncaughtFailureHandler()` (logged by default). A session's cancellation is not a failure.
 */
public suspend fun RingPool.serve(
    address: InetSocketAddress,
    scope: CoroutineScope,
    session: suspend (RingConnection) -> Unit,
): RingServer {
    val server = bind(address) { conn ->
        scope.launch(conn.ring.dispatcher) {
            try {
                session(conn)
            } catch (e: CancellationException) {
                throw e
            } catch (e: Throwable) {
                reportSessionFailure(coroutineContext, e)
            }
        }.invokeOnCompletion { conn.closeAsync() } // runs even if the session never started
    }
    scope.coroutineContext[Job]?.invokeOnCompletion { server.closeNow() }
    return server
}

/** A failed session's failure, to the scope's handler if it has one, else to the uncaught failure handler. */
private fun reportSessionFailure(context: CoroutineContext, failure: Throwable) {
    val handler = context[CoroutineExceptionHandler]
    if (handler == null) {
        UncaughtFailures.report(null, failure)
        return
    }
    try {
        handler.handleException(context, failure)
    } catch (handlerFailure: Throwable) {
        if (handlerFailure !== failure) failure.addSuppressed(handlerFailure)
        UncaughtFailures.report(null, failure)
    }
}
