package dev.corobridge.pump.internal

import dev.corobridge.pump.MainPump
import dev.corobridge.pump.PumpMainDispatcher
import kotlinx.coroutines.InternalCoroutinesApi
import kotlinx.coroutines.MainCoroutineDispatcher
import kotlinx.coroutines.internal.MainDispatcherFactory

/**
 * Internal API: not for use outside corobridge; may change without notice. Public only because the
 * corobridge-main artifact (another module) registers it with the service loader.
 *
 * Lets a pump back `Dispatchers.Main` when the application opts in through [MainPump]; never
 * active by accident. Below Swing's and JavaFX's factories unless `-Dcorobridge.main=pump`.
 * Registered only by the corobridge-main artifact (its `META-INF/services`), as kotlinx-coroutines-swing
 * registers Swing's: corobridge-dispatchers alone leaves `Dispatchers.Main` to others.
 */
@OptIn(InternalCoroutinesApi::class)
public class PumpMainDispatcherFactory : MainDispatcherFactory {

    override val loadPriority: Int
        get() = if ("pump".equals(System.getProperty(MainPump.MAIN_PROPERTY, ""), ignoreCase = true)) 1_000 else -1

    override fun createDispatcher(allFactories: List<MainDispatcherFactory>): MainCoroutineDispatcher =
        PumpMainDispatcher(isImmediate = false)

    override fun hintOnError(): String =
        "For a corobridge pump as Dispatchers.Main, call MainPump.install(pump) before using it"
}
