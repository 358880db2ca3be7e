package dev.corobridge.test;

import dev.corobridge.pump.ManualPump;
import dev.corobridge.ring.RingPool;
import java.util.Optional;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestInstancePreConstructCallback;
import org.junit.jupiter.api.extension.TestInstanceFactoryContext;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * corobridge's JUnit Jupiter extension: each test gets its own pump, its own
 * {@code Dispatchers.Main}, and fails if it leaves work running. Register it with
 * {@link CorobridgeTest @CorobridgeTest} (which also carries its settings) or
 * {@code @ExtendWith(CorobridgeExtension.class)} (default settings).
 *
 * <h2>What a test gets</h2>
 * <ul>
 *   <li><b>A {@link ManualPump}</b>, created on the test's thread before the test instance (per-method
 *       lifecycle) or before the {@code @BeforeEach} methods, so the test thread is its pump thread:
 *       work posted to it runs when the test calls {@code runUntilIdle()}, and time moves only through
 *       {@code advanceTimeBy(...)} / {@code advanceUntilIdle()} (virtual time: a one-hour timeout
 *       costs nothing). Ask for it as a parameter of the test method, of a {@code @BeforeEach} /
 *       {@code @AfterEach} method, or of the test class's constructor (per-method lifecycle only).
 *       Its name is {@link CorobridgeTest#pumpName()}.</li>
 *   <li><b>Its own {@code Dispatchers.Main}</b>: that pump, for code on the test thread and for every
 *       coroutine started there or in the pump's scope, wherever it resumes later (after
 *       {@code withContext(Dispatchers.IO)}, after ring I/O). Tests that run in parallel (JUnit's
 *       {@code junit.jupiter.execution.parallel.enabled}) each see their own pump; kotlinx's
 *       {@code Dispatchers.setMain} cannot do that, it is one global. Outside such a test,
 *       {@code Dispatchers.Main} is whatever else the class path provides (corobridge-main's
 *       {@code MainPump}, a UI toolkit's), and kotlinx-coroutines-test's {@code setMain} still wins
 *       while it is set. A thread the test starts itself is not the test's: start coroutines from
 *       the test thread (or in the pump's scope) instead.</li>
 *   <li><b>A {@link RingPool}</b> if it asks for one (same places as the pump): one ring, io_uring
 *       where available, or the fallback transport with {@link CorobridgeTest#ringFallback()}.</li>
 * </ul>
 *
 * <h2>What a test must leave behind: nothing</h2>
 * After the test and its {@code @AfterEach} methods, the extension fails the test with a
 * {@link LeakedWorkError} listing anything still running: coroutines in the pump's scope or on
 * {@code Dispatchers.Main} (by name, e.g. {@code "poller":StandaloneCoroutine{Active}}), tasks
 * queued on the pump, pending pump timers, open ring files and ring operations in flight. Then, in
 * every case, it cancels those coroutines, closes the ring pool and shuts the pump down (graceful,
 * so cleanup runs on the pump, then forced), so the next test starts clean. A test that wants a
 * coroutine to outlive its body cancels it and calls {@code runUntilIdle()} before it returns.
 * Not seen by the check: work that never touched the test's pump or {@code Dispatchers.Main}, and a
 * suspended coroutine outside the pump's scope that runs on {@code pump.getDispatcher()} directly
 * rather than on {@code Dispatchers.Main} (the pump keeps no list of those).
 *
 * <h2>Limits</h2>
 * The pump belongs to the test's thread: with {@code @Timeout(threadMode = SEPARATE_THREAD)} the
 * test body runs on another thread and cannot drive it. Blocking the test thread while waiting for
 * work on {@code Dispatchers.Main} ({@code runBlocking { withContext(Dispatchers.Main) {...} } },
 * {@code task.join()}) cannot work either: the pump only runs when the test drives it.
 *
 * <p><b>Thread-safety.</b> Stateless: one instance may serve tests on many threads at once; each
 * test's resources live in its own {@code ExtensionContext.Store}.
 */
public final class CorobridgeExtension
        implements TestInstancePreConstructCallback, BeforeEachCallback, AfterEachCallback, ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(CorobridgeExtension.class);
    private static final String RESOURCES = "resources";

    /** The defaults of {@link CorobridgeTest}, for a test that registers the extension without it. */
    @CorobridgeTest
    private static final class Defaults {
    }

    /** Instantiated by JUnit ({@code @ExtendWith}); stateless. */
    public CorobridgeExtension() {
    }

    /** Per-method lifecycle: makes the pump before the test instance, so a constructor may use it. */
    @Override
    public void preConstructTestInstance(TestInstanceFactoryContext factoryContext, ExtensionContext context) {
        if (context.getTestMethod().isPresent()) {
            resources(context);
        }
    }

    @Override
    public ExtensionContextScope getTestInstantiationExtensionContextScope(ExtensionContext rootContext) {
        // A per-method test instance is made in the test method's context: its pump is that test's.
        return ExtensionContextScope.TEST_METHOD;
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        resources(context);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        PerTestResources resources = context.getStore(NAMESPACE).remove(RESOURCES, PerTestResources.class);
        if (resources != null) {
            resources.finish();
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        Class<?> type = parameterContext.getParameter().getType();
        return type == ManualPump.class || type == RingPool.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        Class<?> type = parameterContext.getParameter().getType();
        if (extensionContext.getTestMethod().isEmpty()) {
            throw new ParameterResolutionException("CorobridgeExtension gives each test its own " + type.getSimpleName()
                    + ": take it as a parameter of the test method, of a @BeforeEach or @AfterEach method, or of the"
                    + " constructor of a test class with the default per-method lifecycle; not of "
                    + parameterContext.getDeclaringExecutable());
        }
        PerTestResources resources = resources(extensionContext);
        return type == RingPool.class ? resources.ringPool() : resources.pump();
    }

    /** The test's resources, created on first use (on the test's thread). */
    private static PerTestResources resources(ExtensionContext context) {
        return context.getStore(NAMESPACE).computeIfAbsent(RESOURCES, key -> {
            CorobridgeTest settings = settings(context);
            return PerTestResources.open(testName(context), settings.pumpName(), settings.ringFallback());
        }, PerTestResources.class);
    }

    /** The nearest {@code @CorobridgeTest}: the method's, the class's, an enclosing class's, or the defaults. */
    private static CorobridgeTest settings(ExtensionContext context) {
        Optional<CorobridgeTest> onMethod = AnnotationSupport.findAnnotation(context.getTestMethod(), CorobridgeTest.class);
        if (onMethod.isPresent()) {
            return onMethod.get();
        }
        return context.getTestClass()
                .flatMap(c -> AnnotationSupport.findAnnotation(c, CorobridgeTest.class, context.getEnclosingTestClasses()))
                .orElseGet(() -> Defaults.class.getAnnotation(CorobridgeTest.class));
    }

    private static String testName(ExtensionContext context) {
        return context.getTestClass().map(Class::getSimpleName).map(c -> c + " > ").orElse("") + context.getDisplayName();
    }
}
