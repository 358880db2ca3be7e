package dev.corobridge.test;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.util.Arrays;
import java.util.List;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.discovery.ClassSelector;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.testkit.engine.Event;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;

/** Runs {@link Sample} test classes through the Jupiter engine (JUnit's EngineTestKit) and returns their events. */
public final class Samples {

    /** The configuration parameter that enables {@link Sample} classes. */
    static final String RUN_SAMPLES = "corobridge.test.samples";

    private Samples() {
    }

    /** Runs the classes one test at a time, on the calling thread. */
    public static EngineExecutionResults run(Class<?>... classes) {
        return builder(classes).execute();
    }

    /**
     * Runs the classes with JUnit's parallel execution: every test concurrently, on {@code threads}
     * worker threads.
     */
    public static EngineExecutionResults runInParallel(int threads, Class<?>... classes) {
        return builder(classes)
                .configurationParameter("junit.jupiter.execution.parallel.enabled", "true")
                .configurationParameter("junit.jupiter.execution.parallel.mode.default", "concurrent")
                .configurationParameter("junit.jupiter.execution.parallel.mode.classes.default", "concurrent")
                .configurationParameter("junit.jupiter.execution.parallel.config.strategy", "fixed")
                .configurationParameter("junit.jupiter.execution.parallel.config.fixed.parallelism", Integer.toString(threads))
                .configurationParameter("junit.jupiter.execution.parallel.config.fixed.max-pool-size", Integer.toString(threads))
                .execute();
    }

    /** The failure of the test method {@code method}; fails if it did not fail. */
    public static Throwable failureOf(EngineExecutionResults results, String method) {
        List<Throwable> failures = results.testEvents().failed().stream()
                .filter(e -> isMethod(e, method))
                .map(e -> e.getRequiredPayload(TestExecutionResult.class).getThrowable().orElseThrow())
                .toList();
        if (failures.size() != 1) {
            throw new AssertionError("expected test " + method + " to fail once; failures: " + failures
                    + "; all events: " + results.allEvents().list());
        }
        return failures.get(0);
    }

    /** The names of the test methods that succeeded. */
    public static List<String> succeeded(EngineExecutionResults results) {
        return results.testEvents().succeeded().stream().map(Samples::methodName).sorted().toList();
    }

    private static boolean isMethod(Event e, String method) {
        return method.equals(methodName(e));
    }

    private static String methodName(Event e) {
        return e.getTestDescriptor().getSource()
                .filter(MethodSource.class::isInstance)
                .map(s -> ((MethodSource) s).getMethodName())
                .orElse(e.getTestDescriptor().getDisplayName());
    }

    private static EngineTestKit.Builder builder(Class<?>... classes) {
        return EngineTestKit.engine("junit-jupiter")
                .selectors(Arrays.stream(classes).map(c -> selectClass(c)).toArray(ClassSelector[]::new))
                .configurationParameter(RUN_SAMPLES, "true");
    }
}
