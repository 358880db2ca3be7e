package dev.corobridge.pump;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.InvocationTargetException;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/**
 * corobridge-dispatchers on the class path does not claim kotlinx's {@code Dispatchers.Main}: that
 * takes the corobridge-main artifact (as kotlinx-coroutines-swing does for Swing). Checked in a
 * class loader of its own over an application's class path (see {@link ApplicationClassPath}),
 * where kotlinx finds no Main factory and uses its "missing" dispatcher.
 */
class MainDispatcherOptInTest {

    @Test
    void withoutCorobridgeMainNoMainDispatcherFactoryIsRegistered() throws Exception {
        try (URLClassLoader app = ApplicationClassPath.loader("application")) {
            Class<?> factory = Class.forName("kotlinx.coroutines.internal.MainDispatcherFactory", false, app);
            List<String> registered = new ArrayList<>();
            ServiceLoader.load(factory, app).stream().forEach(p -> registered.add(p.type().getName()));
            assertEquals(List.of(), registered);
        }
    }

    @Test
    void withoutCorobridgeMainDispatchersMainIsKotlinxsMissingDispatcher() throws Exception {
        try (URLClassLoader app = ApplicationClassPath.loader("application")) {
            Object main = Class.forName("kotlinx.coroutines.Dispatchers", true, app).getMethod("getMain").invoke(null);
            assertEquals("kotlinx.coroutines.internal.MissingMainCoroutineDispatcher", main.getClass().getName());
            Object emptyContext = Class.forName("kotlin.coroutines.EmptyCoroutineContext", true, app)
                    .getField("INSTANCE").get(null);
            Class<?> context = Class.forName("kotlin.coroutines.CoroutineContext", false, app);
            InvocationTargetException e = assertThrows(InvocationTargetException.class,
                    () -> Class.forName("kotlinx.coroutines.CoroutineDispatcher", false, app)
                            .getMethod("isDispatchNeeded", context).invoke(main, emptyContext));
            IllegalStateException missing = assertInstanceOf(IllegalStateException.class, e.getCause());
            assertTrue(missing.getMessage().contains("Main dispatcher is missing"), missing.getMessage());
        }
    }
}
