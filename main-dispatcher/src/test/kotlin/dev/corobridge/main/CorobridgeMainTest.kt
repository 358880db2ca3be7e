package dev.corobridge.main

import dev.corobridge.pump.MainPump
import dev.corobridge.pump.ManualPump
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.GlobalScope
import kotlinx.coroutines.DelicateCoroutinesApi
import kotlinx.coroutines.internal.MainDispatcherFactory
import kotlinx.coroutines.InternalCoroutinesApi
import kotlinx.coroutines.launch
import org.junit.jupiter.api.Test
import java.util.ServiceLoader
import kotlin.coroutines.EmptyCoroutineContext
import kotlin.test.assertContains
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertNull
import kotlin.test.assertTrue

/**
 * With corobridge-main on the class path (and no kotlinx-coroutines-test), `Dispatchers.Main` is
 * the pump's: it fails, naming `MainPump.install`, until a pump is installed, then runs there.
 */
@OptIn(InternalCoroutinesApi::class, DelicateCoroutinesApi::class)
class CorobridgeMainTest {

    @Test
    fun `the artifact registers its factory`() {
        val registered = ServiceLoader.load(MainDispatcherFactory::class.java).stream().map { it.type().name }.toList()
        assertEquals(listOf(CorobridgeMainDispatcherFactory::class.java.name), registered)
    }

    @Test
    fun `Dispatchers Main runs on the installed pump and names MainPump install while none is`() {
        assertNull(MainPump.current(), "no pump installed yet")
        val e = assertFailsWith<IllegalStateException> { Dispatchers.Main.isDispatchNeeded(EmptyCoroutineContext) }
        assertContains(e.message.orEmpty(), "MainPump.install")

        val pump = ManualPump.create("main-pump")
        MainPump.install(pump)
        try {
            assertEquals("Dispatchers.Main", Dispatchers.Main.toString())
            var ranOnPump = false
            GlobalScope.launch(Dispatchers.Main) { ranOnPump = pump.isCurrentThread }
            assertEquals(false, ranOnPump, "Main always dispatches: nothing ran yet")
            pump.runUntilIdle()
            assertTrue(ranOnPump, "the coroutine ran on the pump")
        } finally {
            MainPump.uninstall(pump)
            pump.shutdownNow()
            pump.runUntilIdle()
        }
    }
}
