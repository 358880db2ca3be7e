package dev.corobridge.pump

import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.MainCoroutineDispatcher
import org.junit.jupiter.api.Test
import java.io.File
import java.net.URLClassLoader
import java.util.concurrent.Callable
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/**
 * The pump's Main contract where the pump's dispatcher really *is* `Dispatchers.Main`, as in an
 * application: this test's class path without kotlinx-coroutines-test (whose `TestMainDispatcher`
 * would otherwise stand in front of it), in a class loader of its own. [RealMainProbe] runs there.
 */
class RealDispatchersMainTest {

    @Test
    fun `without kotlinx-coroutines-test the pump's dispatcher is Dispatchers Main and keeps the contract`() {
        val entries = System.getProperty("java.class.path").split(File.pathSeparator).filter { it.isNotBlank() }
        assertTrue(entries.any { "kotlinx-coroutines-core" in it }, "unexpected test class path: $entries")
        val withoutTestModule = entries.filterNot { "kotlinx-coroutines-test" in it }
        assertTrue(withoutTestModule.size < entries.size, "kotlinx-coroutines-test not found on $entries")
        // Here, in the test's own loader, Main is kotlinx-coroutines-test's stand-in.
        assertTrue(Dispatchers.Main is MainCoroutineDispatcher)
        URLClassLoader(
            "without-kotlinx-coroutines-test",
            withoutTestModule.map { File(it).toURI().toURL() }.toTypedArray(),
            ClassLoader.getPlatformClassLoader(),
        ).use { loader ->
            val probe = Class.forName(RealMainProbe::class.java.name, true, loader)
                .getDeclaredConstructor().newInstance() as Callable<*>
            assertEquals("ok", probe.call())
        }
    }
}
