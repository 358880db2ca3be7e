package dev.corobridge.test

import kotlinx.coroutines.InternalCoroutinesApi
import kotlinx.coroutines.MainCoroutineDispatcher
import kotlinx.coroutines.internal.MainDispatcherFactory
import kotlinx.coroutines.internal.tryCreateDispatcher

/**
 * Registers [PerTestMainDispatcher] as kotlinx's `Dispatchers.Main` (this artifact's
 * `META-INF/services/kotlinx.coroutines.internal.MainDispatcherFactory`): having corobridge-test on
 * the (test) class path is the opt-in, as it is for kotlinx-coroutines-test.
 *
 * **Priority.** Just below kotlinx-coroutines-test's factory (`Int.MAX_VALUE`), which wraps the
 * next-best factory, this one, so `Dispatchers.setMain(...)` still wins while it is set; above every
 * other (corobridge-main's, Swing's, JavaFX's, Android's), which this one wraps in turn: outside a
 * test that the extension gives a pump, `Dispatchers.Main` is what it would have been without
 * this artifact.
 *
 * kotlinx instantiates it through the service loader, once, when `Dispatchers.Main` is first used.
 * Stateless.
 */
@OptIn(InternalCoroutinesApi::class)
internal class PerTestMainDispatcherFactory : MainDispatcherFactory {

    override val loadPriority: Int get() = LOAD_PRIORITY

    override fun createDispatcher(allFactories: List<MainDispatcherFactory>): MainCoroutineDispatcher {
        // The factories below this one; a factory above it (kotlinx-coroutines-test's) is wrapping it.
        val others = allFactories.filter { it !is PerTestMainDispatcherFactory && it.loadPriority < LOAD_PRIORITY }
        val next = others.maxByOrNull { it.loadPriority }
        return PerTestMainDispatcher(lazy { next?.tryCreateDispatcher(others) })
    }

    override fun hintOnError(): String =
        "corobridge-test: Dispatchers.Main is the pump of the test that @CorobridgeTest runs"

    companion object {
        /** Below kotlinx-coroutines-test's `Int.MAX_VALUE`, above every Main of a platform. */
        const val LOAD_PRIORITY: Int = Int.MAX_VALUE - 1
    }
}
