package dev.corobridge.pump

import kotlinx.coroutines.CancellableContinuation
import kotlinx.coroutines.Delay
import kotlinx.coroutines.DisposableHandle
import kotlinx.coroutines.InternalCoroutinesApi
import kotlinx.coroutines.MainCoroutineDispatcher
import kotlin.coroutines.CoroutineContext

/**
 * `Dispatchers.Main`: delegates every call to the pump [MainPump] has installed at that moment.
 *
 * It keeps the contract of kotlinx's own Main dispatchers (Swing's, JavaFX's, Android's):
 * - [toString] is `Dispatchers.Main`, and `Dispatchers.Main.immediate` for [immediate], while it is
 *   the platform's Main (otherwise it names the installed pump);
 * - `Dispatchers.Main` always dispatches ([isDispatchNeeded] is `true`); [immediate] runs inline
 *   on the pump thread and dispatches elsewhere; both share the pump's one queue, so their order
 *   is the order of posting;
 * - `delay` uses the pump's timers and resumes inside the timer, with this dispatcher as the one
 *   the continuation is known to run on, so that a delay costs one timer and no further pump task,
 *   and on [immediate] what the resumed coroutine resumes in turn runs in the same order as on
 *   Swing's Main.
 */
@OptIn(InternalCoroutinesApi::class)
internal class PumpMainDispatcher(private val isImmediate: Boolean) : MainCoroutineDispatcher(), Delay {

    private val immediateView by lazy(LazyThreadSafetyMode.PUBLICATION) {
        if (isImmediate) this else PumpMainDispatcher(isImmediate = true)
    }

    override val immediate: MainCoroutineDispatcher get() = immediateView

    private fun target(): PumpDispatcher {
        val pump = MainPump.current() ?: throw IllegalStateException(
            "Dispatchers.Main is backed by corobridge, but no pump is installed: call " +
                "MainPump.install(pump) at start-up (or Dispatchers.setMain(...) in tests)"
        )
        return if (isImmediate) pump.dispatcher.immediate else pump.dispatcher
    }

    override fun isDispatchNeeded(context: CoroutineContext): Boolean = target().isDispatchNeeded(context)

    override fun dispatch(context: CoroutineContext, block: Runnable): Unit = target().dispatch(context, block)

    // The timer resumes the continuation with this dispatcher, the one it runs on, not the pump's
    // own: kotlinx then resumes it in place instead of dispatching it once more.
    override fun scheduleResumeAfterDelay(timeMillis: Long, continuation: CancellableContinuation<Unit>): Unit =
        target().scheduleResumeAfterDelay(timeMillis, continuation, this)

    /** Whether [pump] is the one this dispatcher delegates to now. */
    internal fun isBackedBy(pump: MessagePump): Boolean = MainPump.current() === pump

    override fun invokeOnTimeout(timeMillis: Long, block: Runnable, context: CoroutineContext): DisposableHandle =
        target().invokeOnTimeout(timeMillis, block, context)

    override fun toString(): String = toStringInternalImpl()
        ?: ("MainPump[${MainPump.current()?.name ?: "no pump installed"}]" + if (isImmediate) ".immediate" else "")
}
