package dev.corobridge.test;

import dev.corobridge.pump.ManualPump;
import dev.corobridge.ring.RingPool;
import dev.corobridge.ring.RingPoolConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What {@link CorobridgeExtension} gives one test: its {@link ManualPump}, that pump's claim on
 * {@code Dispatchers.Main} ({@link MainBinding}), and, on request, a {@link RingPool}; and their end:
 * {@link #finish()} checks for leaks, then cancels and shuts everything down.
 *
 * <p>Lives in the test method's {@code ExtensionContext.Store}; JUnit {@linkplain #close() closes}
 * it when that context ends, which releases everything quietly if {@link #finish()} never ran
 * (e.g. the test instance could not be created).
 *
 * <p><b>Thread-safety.</b> Confined to the test's thread, which is the pump thread: created there
 * (the pump binds to its creating thread), used and finished there.
 */
final class PerTestResources implements AutoCloseable {

    /** Small and quick to stop: one ring is enough for a test. */
    private static final int TEST_RINGS = 1;
    private static final String RING_POOL_NAME = "test-ring";

    private final String testName;
    private final boolean ringFallback;
    private final ManualPump pump;
    private final MainBinding binding;
    private RingPool ringPool;
    private boolean released;

    private PerTestResources(String testName, String pumpName, boolean ringFallback) {
        this.testName = testName;
        this.ringFallback = ringFallback;
        this.pump = ManualPump.create(pumpName);
        this.binding = MainBindings.INSTANCE.open(pump);
    }

    /** Creates the pump on the calling thread (the test's) and makes it that thread's {@code Dispatchers.Main}. */
    static PerTestResources open(String testName, String pumpName, boolean ringFallback) {
        Objects.requireNonNull(pumpName, "pumpName");
        if (pumpName.isBlank()) {
            throw new IllegalArgumentException("@CorobridgeTest(pumpName) must not be blank (test '" + testName + "')");
        }
        return new PerTestResources(testName, pumpName, ringFallback);
    }

    ManualPump pump() {
        return pump;
    }

    /** The test's ring pool, started on first request. */
    RingPool ringPool() {
        if (released) {
            throw new IllegalStateException("test '" + testName + "' has ended; its ring pool is closed");
        }
        if (ringPool == null) {
            ringPool = RingPool.start(RingPoolConfig.builder().name(RING_POOL_NAME).rings(TEST_RINGS)
                    .forceFallback(ringFallback).build());
        }
        return ringPool;
    }

    /**
     * Ends the test: lists what it left running, then releases everything (whatever it found) and
     * throws a {@link LeakedWorkError} if it found anything. A failure while releasing is thrown
     * (with the leak error, if any, as suppressed).
     */
    void finish() {
        List<String> leaks = LeakInspector.inspect(pump, binding, ringPool);
        List<Throwable> releaseFailures = release();
        AssertionError leaked = leaks.isEmpty() ? null : new LeakedWorkError(testName, leaks);
        if (!releaseFailures.isEmpty()) {
            Throwable first = releaseFailures.get(0);
            for (Throwable t : releaseFailures.subList(1, releaseFailures.size())) {
                first.addSuppressed(t);
            }
            if (leaked != null) {
                first.addSuppressed(leaked);
            }
            throwUnchecked(first);
        }
        if (leaked != null) {
            throw leaked;
        }
    }

    /** Releases everything if {@link #finish()} did not. */
    @Override
    public void close() {
        if (!released) {
            List<Throwable> failures = release();
            if (!failures.isEmpty()) {
                throwUnchecked(failures.get(0));
            }
        }
    }

    /**
     * Cancels coroutines left on Main, closes the ring pool, shuts the pump down (gracefully first:
     * cancelled coroutines run their cleanup on the pump; then forced), gives up Main. Every step
     * runs even if an earlier one failed; returns the failures.
     */
    private List<Throwable> release() {
        released = true;
        List<Throwable> failures = new ArrayList<>();
        try {
            LeakInspector.cancelLeftovers(binding);
        } catch (Throwable t) {
            failures.add(t);
        }
        if (ringPool != null) {
            try {
                ringPool.close();
            } catch (Throwable t) {
                failures.add(t);
            }
        }
        try {
            if (!pump.isTerminated()) {
                pump.shutdown();
                pump.runUntilIdle();
                if (!pump.isTerminated()) {
                    pump.shutdownNow();
                    pump.runUntilIdle();
                }
            }
        } catch (Throwable t) {
            failures.add(t);
        } finally {
            binding.close();
        }
        return failures;
    }

    @SuppressWarnings("unchecked")
    private static <T extends Throwable> void throwUnchecked(Throwable t) throws T {
        throw (T) t;
    }
}
