package dev.corobridge.main

import dev.corobridge.pump.PumpMainDispatcherFactory
import kotlinx.coroutines.InternalCoroutinesApi
import kotlinx.coroutines.internal.MainDispatcherFactory

/**
 * The `Dispatchers.Main` factory that the corobridge-main artifact registers (its only content,
 * with `META-INF/services/kotlinx.coroutines.internal.MainDispatcherFactory`): having the artifact
 * on the class path is the opt-in, as having kotlinx-coroutines-swing is for Swing. It is
 * [PumpMainDispatcherFactory] under a class of this artifact's own, so that the registration is
 * also valid on the module path (a service provider must belong to the module that declares it).
 *
 * Behaviour, priority and errors are [PumpMainDispatcherFactory]'s: `Dispatchers.Main` delegates
 * to the pump installed with `MainPump.install(pump)`, and fails, naming that call, while none is.
 */
@OptIn(InternalCoroutinesApi::class)
class CorobridgeMainDispatcherFactory : MainDispatcherFactory by PumpMainDispatcherFactory()
