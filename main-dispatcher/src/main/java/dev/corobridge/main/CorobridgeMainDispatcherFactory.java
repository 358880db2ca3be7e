package dev.corobridge.main;

import dev.corobridge.pump.internal.PumpMainDispatcherFactory;
import java.util.List;
import kotlinx.coroutines.MainCoroutineDispatcher;
import kotlinx.coroutines.internal.MainDispatcherFactory;

/**
 * The {@code Dispatchers.Main} factory that the corobridge-main artifact registers (its only
 * content, with {@code META-INF/services/kotlinx.coroutines.internal.MainDispatcherFactory}): having
 * the artifact on the class path is the opt-in, as having kotlinx-coroutines-swing is for Swing. It
 * is {@link PumpMainDispatcherFactory} under a class of this artifact's own, so that the
 * registration is also valid on the module path (a service provider must belong to the module that
 * declares it).
 *
 * <p>Behaviour, priority and errors are {@code PumpMainDispatcherFactory}'s: {@code Dispatchers.Main}
 * delegates to the pump installed with {@code MainPump.install(pump)} and fails, naming that call,
 * while none is. kotlinx instantiates this class through the service loader; applications do not.
 *
 * <p><b>Thread-safety.</b> Stateless apart from the factory it delegates to; kotlinx calls it once,
 * when {@code Dispatchers.Main} is first used.
 */
public final class CorobridgeMainDispatcherFactory implements MainDispatcherFactory {

    private final MainDispatcherFactory delegate = new PumpMainDispatcherFactory();

    /** Called by the service loader. */
    public CorobridgeMainDispatcherFactory() {
    }

    @Override
    public int getLoadPriority() {
        return delegate.getLoadPriority();
    }

    @Override
    public MainCoroutineDispatcher createDispatcher(List<? extends MainDispatcherFactory> allFactories) {
        return delegate.createDispatcher(allFactories);
    }

    @Override
    public String hintOnError() {
        return delegate.hintOnError();
    }
}
