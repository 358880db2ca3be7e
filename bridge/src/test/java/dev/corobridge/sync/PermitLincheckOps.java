package dev.corobridge.sync;

import dev.corobridge.bridge.Awaitable;
import dev.corobridge.bridge.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Validate;

/**
 * Lincheck operations on a permit primitive's Java face ({@link AsyncSemaphore}, {@link AsyncMutex}):
 * start an acquisition, try to take a permit, release a permit the test holds, cancel the oldest
 * acquisition. The subclass says what acquiring and releasing are.
 *
 * <p>{@link #release()} releases "some permit the test holds", which is no atomic operation of the
 * primitive, so results are not checked for linearizability (the tests use
 * {@link dev.corobridge.lincheck.NoExceptionVerifier}, which accepts any result but an
 * exception); the invariants are, by {@link #permitsConserved()} after every interleaving:
 * <ul>
 *   <li>no more permits were ever held at once than exist (checked as each is obtained);</li>
 *   <li>permits are conserved: held by the test plus available equals the total;</li>
 *   <li>no acquisition waits while a permit is available (a lost hand-over);</li>
 *   <li>every acquisition that ended ran its callback exactly once; a {@code cancel()} that returned
 *       {@code true} left it cancelled, holding nothing; one that returned {@code false} found it
 *       granted (the permit is then held, and released like any other); nothing else cancels.</li>
 * </ul>
 */
public abstract class PermitLincheckOps {

    private final int permits;
    /** Every acquisition started, oldest first (a plain array: a scenario has few operations). */
    private final AtomicReferenceArray<Acquisition> acquisitions = new AtomicReferenceArray<>(64);
    private final AtomicInteger started = new AtomicInteger();
    /** Permits taken by tryAcquire() and not yet released. */
    private final AtomicInteger triedAndHeld = new AtomicInteger();
    /** Permits the test holds now (from any path); never above {@code permits}. */
    private final AtomicInteger holding = new AtomicInteger();
    /** The first time {@link #holding} went above the permits, or null. */
    private volatile String overHeld;

    protected PermitLincheckOps(int permits) {
        this.permits = permits;
    }

    /** Starts an acquisition (the Java face's {@code acquire()} / {@code lock()}). */
    protected abstract Awaitable<Void> startAcquire();

    /** Takes a permit now if one is free. */
    protected abstract boolean tryTake();

    /** Returns one permit. */
    protected abstract void give();

    /** Permits available now. */
    protected abstract int available();

    /** One acquisition: its awaitable, how often its callback ran, the cancel and release made on it. */
    private final class Acquisition {
        final Awaitable<Void> wait;
        final AtomicInteger callbacks = new AtomicInteger();
        final AtomicBoolean cancelRequested = new AtomicBoolean();
        /** What cancel() returned: null while not cancelled. */
        volatile Boolean cancelled;
        final AtomicBoolean released = new AtomicBoolean();

        Acquisition(Awaitable<Void> wait) {
            this.wait = wait;
        }

        void watch() {
            wait.onComplete(o -> {
                callbacks.incrementAndGet();
                if (o.isSuccess()) {
                    obtained();
                }
            });
        }
    }

    private void obtained() {
        int now = holding.incrementAndGet();
        if (now > permits && overHeld == null) {
            overHeld = now + " permits held at once, of " + permits;
        }
    }

    @Operation
    public void acquire() {
        Acquisition a = new Acquisition(startAcquire());
        acquisitions.set(started.getAndIncrement(), a);
        a.watch();
    }

    @Operation
    public boolean tryAcquire() {
        if (!tryTake()) {
            return false;
        }
        triedAndHeld.incrementAndGet();
        obtained();
        return true;
    }

    /** Releases one permit the test holds (from a granted acquisition, else from tryAcquire); none: no-op. */
    @Operation
    public void release() {
        for (Acquisition a : acquisitions()) {
            Outcome<Void> o = a.wait.outcomeOrNull();
            if (o != null && o.isSuccess() && a.released.compareAndSet(false, true)) {
                holding.decrementAndGet();
                give();
                return;
            }
        }
        int t;
        while ((t = triedAndHeld.get()) > 0) {
            if (triedAndHeld.compareAndSet(t, t - 1)) {
                holding.decrementAndGet();
                give();
                return;
            }
        }
    }

    /** Cancels the oldest acquisition not cancelled yet (pending, granted at this instant, or granted). */
    @Operation
    public void cancel() {
        for (Acquisition a : acquisitions()) {
            if (a.cancelRequested.compareAndSet(false, true)) {
                a.cancelled = a.wait.cancel();
                return;
            }
        }
    }

    /** The acquisitions published so far, oldest first. */
    private List<Acquisition> acquisitions() {
        List<Acquisition> list = new ArrayList<>();
        for (int i = 0, n = started.get(); i < n; i++) {
            Acquisition a = acquisitions.get(i);
            if (a != null) { // null: its acquire() is between taking the slot and filling it
                list.add(a);
            }
        }
        return list;
    }

    @Validate
    public void permitsConserved() {
        List<String> problems = new ArrayList<>();
        if (overHeld != null) {
            problems.add(overHeld);
        }
        int held = holding.get();
        int available = available();
        if (held + available != permits) {
            problems.add("held " + held + " + available " + available + " != " + permits + " permits");
        }
        int i = 0;
        for (Acquisition a : acquisitions()) {
            String name = "acquisition #" + i++;
            Outcome<Void> o = a.wait.outcomeOrNull();
            Boolean cancelled = a.cancelled;
            if (o == null) {
                if (available > 0) {
                    problems.add(name + " waits while " + available + " permits are available");
                }
                if (a.callbacks.get() != 0 || Boolean.TRUE.equals(cancelled)) {
                    problems.add(name + " pending, but callbacks=" + a.callbacks.get() + " cancel()=" + cancelled);
                }
                continue;
            }
            if (a.callbacks.get() != 1) {
                problems.add(name + " ended " + o + " but its callback ran " + a.callbacks.get() + " times");
            }
            if (o.isCancelled() != Boolean.TRUE.equals(cancelled)) {
                problems.add(name + " ended " + o + " but cancel() returned " + cancelled);
            }
            if (!o.isSuccess() && !o.isCancelled()) {
                problems.add(name + " failed: " + o);
            }
        }
        if (!problems.isEmpty()) {
            throw new AssertionError(String.join("; ", problems));
        }
    }
}
