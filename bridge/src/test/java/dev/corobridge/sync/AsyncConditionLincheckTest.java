package dev.corobridge.sync;

import dev.corobridge.bridge.Awaitable;
import dev.corobridge.bridge.Outcome;
import dev.corobridge.lincheck.NoExceptionVerifier;
import dev.corobridge.lincheck.Scenarios;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Options;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Test;

/**
 * Lincheck model checking and stress of {@link AsyncCondition}'s predicate waits against signals,
 * cancellations and other holders of the mutex. Two {@code awaitUntilAsync} waits, A then B, are queued
 * before the parallel part; the predicate ("ready") is set before every signal, so a wait that a
 * signal reaches always finds it true. Each wait's callback plays its caller's
 * {@code finally { unlock(); }}. After every interleaving ({@link #invariants()}):
 * <ul>
 *   <li>no signal is swallowed: the waits that succeeded are exactly as many as the signals that
 *       found a wait ({@code signal()} returned {@code true}, {@code signalAll()} counted);</li>
 *   <li>a wait ended cancelled if and only if a {@code cancel()} of it returned {@code true}: one
 *       that returned {@code false} on a pending wait left it to complete with its signal (success,
 *       as the predicate holds once signalled) — and nothing else cancels or fails a wait;</li>
 *   <li>every wait completed holding the mutex (as its owner token, in the shared-token variant),
 *       its callback ran once, and at the end nobody holds the mutex.</li>
 * </ul>
 * {@link SharedTokenOps} runs the same with one owner token for the waits and for another holder
 * ({@link Ops#holdMutex()}), which may hold the mutex when a wait must take it back.
 */
class AsyncConditionLincheckTest {

    /** The operations, without owner tokens. */
    public static class Ops {
        private final Object owner;
        private final AsyncMutex mutex = new AsyncMutex();
        private final AsyncCondition condition = new AsyncCondition(mutex);
        private volatile boolean ready;
        private final Watched a;
        private final Watched b;
        private final AtomicInteger signalsTaken = new AtomicInteger();
        private final AtomicInteger holds = new AtomicInteger();
        private final Queue<String> problems = new ConcurrentLinkedQueue<>();

        public Ops() {
            this(null);
        }

        Ops(Object owner) {
            this.owner = owner;
            a = new Watched("A");
            b = new Watched("B");
        }

        /** One wait: queued holding the mutex, which it releases while it waits. */
        private final class Watched {
            final String name;
            final Awaitable<Void> wait;
            final AtomicInteger callbacks = new AtomicInteger();
            /** Whether some cancel() returned true; null while none was called. */
            volatile Boolean cancelled;

            void cancel() {
                boolean won = wait.cancel();
                synchronized (this) {
                    cancelled = won || Boolean.TRUE.equals(cancelled);
                }
            }

            Watched(String name) {
                this.name = name;
                lock().resultNow(); // free: taken at once
                wait = owner == null ? condition.awaitUntilAsync(() -> ready) : condition.awaitUntilAsync(owner, () -> ready);
                wait.onComplete(o -> {
                    callbacks.incrementAndGet();
                    if (!held()) {
                        problems.add(name + " ended " + o + " without holding the mutex");
                        return;
                    }
                    unlock(); // the caller's finally
                });
            }
        }

        private Awaitable<Void> lock() {
            return owner == null ? mutex.lockAsync() : mutex.lockAsync(owner);
        }

        private void unlock() {
            if (owner == null) {
                mutex.unlock();
            } else {
                mutex.unlock(owner);
            }
        }

        private boolean held() {
            return owner == null ? mutex.isLocked() : mutex.holdsLock(owner);
        }

        @Operation
        public boolean signal() {
            ready = true;
            boolean took = condition.signal();
            if (took) {
                signalsTaken.incrementAndGet();
            }
            return took;
        }

        @Operation
        public int signalAll() {
            ready = true;
            int n = condition.signalAll();
            signalsTaken.addAndGet(n);
            return n;
        }

        @Operation
        public void cancelA() {
            a.cancel();
        }

        @Operation
        public void cancelB() {
            b.cancel();
        }

        /**
         * Another holder: takes the mutex (waiting if needed) and releases it once it has it. With a
         * shared token, the mutex refuses it while the token holds the mutex (not reentrant).
         */
        @Operation
        public boolean holdMutex() {
            Awaitable<Void> l = lock();
            Outcome<Void> now = l.outcomeOrNull();
            if (now != null && !now.isSuccess()) {
                return false; // refused as reentrant: the token holds the mutex right now
            }
            holds.incrementAndGet();
            l.onComplete(o -> {
                if (o.isSuccess()) {
                    unlock();
                } else {
                    problems.add("a queued lock ended " + o);
                }
            });
            return true;
        }

        @Validate
        public void invariants() {
            List<String> found = new ArrayList<>(problems);
            int succeeded = 0;
            for (Watched w : List.of(a, b)) {
                Outcome<Void> o = w.wait.outcomeOrNull();
                Boolean cancelled = w.cancelled;
                if (o == null) {
                    if (Boolean.TRUE.equals(cancelled)) {
                        found.add(w.name + " pending after cancel() returned true");
                    }
                    continue;
                }
                if (w.callbacks.get() != 1) {
                    found.add(w.name + " ended " + o + " but its callback ran " + w.callbacks.get() + " times");
                }
                if (o.isSuccess()) {
                    succeeded++;
                }
                if (Boolean.TRUE.equals(cancelled) != o.isCancelled()) {
                    found.add(w.name + " ended " + o + " but cancel() returned " + cancelled);
                }
                if (!o.isSuccess() && !o.isCancelled()) {
                    found.add(w.name + " failed: " + o);
                }
            }
            if (succeeded != signalsTaken.get()) {
                found.add(signalsTaken.get() + " signals found a wait but " + succeeded + " waits succeeded (A "
                        + a.wait.outcomeOrNull() + " cancel " + a.cancelled + ", B " + b.wait.outcomeOrNull()
                        + " cancel " + b.cancelled + ")");
            }
            if (mutex.isLocked()) {
                found.add("the mutex is still locked at the end: " + mutex);
            }
            if (!found.isEmpty()) {
                throw new AssertionError(String.join("; ", found));
            }
        }
    }

    /** The same with one owner token for both waits and for {@link Ops#holdMutex()}. */
    public static class SharedTokenOps extends Ops {
        public SharedTokenOps() {
            super("shared-token");
        }
    }

    /**
     * The random scenarios' shape: three threads of two operations, none before and one after;
     * results are not compared with a sequential run, {@link Ops#invariants()} checks the property.
     */
    private static <O extends Options<O, ?>> O randomScenarios(O options) {
        return options
                .threads(3)
                .actorsPerThread(2)
                .actorsBefore(0)
                .actorsAfter(1)
                .verifier(NoExceptionVerifier.class);
    }

    @Test
    void modelChecking() {
        randomScenarios(new ModelCheckingOptions())
                .iterations(5)
                .invocationsPerIteration(200)
                // A signal chooses A while A is cancelled.
                .addCustomScenario(Scenarios.parallel(Ops.class, "signal", "cancelA"))
                .addCustomScenario(Scenarios.parallel(Ops.class, "holdMutex; signal", "cancelA", "cancelB"))
                .check(Ops.class);
    }

    @Test
    void modelCheckingWithASharedOwnerToken() {
        randomScenarios(new ModelCheckingOptions())
                .iterations(5)
                .invocationsPerIteration(200)
                // Another holder with the waits' token has the mutex when a signal wakes A.
                .addCustomScenario(Scenarios.parallel(SharedTokenOps.class, "holdMutex; signal", "holdMutex"))
                .addCustomScenario(Scenarios.parallel(SharedTokenOps.class, "holdMutex", "signal", "cancelB"))
                .check(SharedTokenOps.class);
    }

    @Test
    void stress() {
        randomScenarios(new StressOptions())
                .iterations(20)
                .invocationsPerIteration(1_000)
                .check(SharedTokenOps.class);
    }
}
