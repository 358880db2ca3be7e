package dev.corobridge.spring

import dev.corobridge.pump.MessagePump
import kotlinx.coroutines.CoroutineDispatcher
import kotlin.coroutines.CoroutineContext

/**
 * Runs coroutine code wherever it is resumed, except on the [pump]'s thread: a resumption there is
 * dispatched to [fallback] instead. The starter's default dispatcher for Kotlin `suspend` WebFlux
 * handlers (`corobridge.webflux.suspend-dispatcher=off-pump`).
 *
 * Why: Spring starts a suspend handler in `Dispatchers.Unconfined`, so after
 * `withContext(pump.dispatcher) { ... }` returns, the handler goes on running on the thread that
 * finished the block, the pump: the rest of the handler (serialising the answer, anything slow)
 * then occupies the UI-affinity thread. This dispatcher keeps Unconfined's economy everywhere else:
 * a handler starts on the Netty thread that read the request with no hop, and a resumption on a
 * ring or CPU thread continues there; only leaving the pump costs one dispatch to [fallback].
 *
 * Algorithm: [isDispatchNeeded] is true exactly when the calling thread is the pump's; kotlinx then
 * calls [dispatch], which hands the block to [fallback]. Elsewhere the continuation runs in place
 * (through kotlinx's unconfined event loop, so nested resumptions do not grow the stack).
 *
 * Thread-safety: immutable; safe to share between any number of coroutines.
 */
class OffPumpDispatcher(
    private val pump: MessagePump,
    private val fallback: CoroutineDispatcher,
) : CoroutineDispatcher() {

    override fun isDispatchNeeded(context: CoroutineContext): Boolean = pump.isCurrentThread()

    override fun dispatch(context: CoroutineContext, block: Runnable) {
        fallback.dispatch(context, block)
    }

    override fun toString(): String = "OffPumpDispatcher[off ${pump.name}, else $fallback]"
}
