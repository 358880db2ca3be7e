package dev.corobridge.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.bridge.Outcome;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@link RingOp}'s phase under races: {@code cancel()} on one thread against the engine's
 * start / commit / settle on another, many times, lined up by a barrier so that every interleaving
 * comes up. Whatever the order: exactly one side decides; {@code cancel()} returns {@code true} if
 * and only if the outcome is then a cancellation it decided; an engine that lost the race never
 * starts the work, or undoes its result; one that won settles with its real result. The engine's
 * in-flight count goes down exactly once per operation, and by the time anyone can see a withdrawn
 * operation decided, it is down already.
 */
class RingOpRaceTest {

    private static final int ROUNDS = 20_000;

    @Test
    void undoableWorkRacingCancel() throws Exception {
        race(true);
    }

    @Test
    void workInTheKernelsHandsRacingCancel() throws Exception {
        race(false);
    }

    private static void race(boolean undoable) throws Exception {
        ExecutorService two = Executors.newFixedThreadPool(2);
        CyclicBarrier go = new CyclicBarrier(2);
        int decidedByCancel = 0;
        int decidedByEngine = 0;
        try {
            for (int i = 0; i < ROUNDS; i++) {
                RingOp<Integer> op = new RingOp<>("race", "r" + i);
                AtomicInteger inFlight = new AtomicInteger();
                op.countIn(inFlight);
                AtomicBoolean started = new AtomicBoolean();
                AtomicBoolean undone = new AtomicBoolean();
                AtomicBoolean askedKernel = new AtomicBoolean();
                Future<Boolean> cancel = two.submit(() -> {
                    go.await();
                    boolean decided = op.cancel();
                    if (decided && !undoable) {
                        assertEquals(0, inFlight.get(), "decided by a withdrawal, yet still counted in flight");
                    }
                    return decided;
                });
                Future<?> engine = two.submit(() -> {
                    go.await();
                    if (!(undoable ? op.startWithdrawable() : op.start())) {
                        op.countOut(); // withdrawn before it started: the engine drops it
                        return null;
                    }
                    started.set(true);
                    op.armCancel(() -> {
                        askedKernel.set(true);
                        return false;
                    });
                    op.countOut(); // the work's result is in (the kernel's completion)
                    if (undoable && !op.commit()) {
                        undone.set(true); // the result came in after cancel() withdrew the operation
                        return null;
                    }
                    if (!undoable && askedKernel.get()) {
                        op.cancelled(); // the kernel honoured the request
                    } else {
                        op.succeed(42);
                    }
                    return null;
                });
                boolean cancelled = cancel.get(30, TimeUnit.SECONDS);
                engine.get(30, TimeUnit.SECONDS);
                Outcome<Integer> o = op.outcomeOrNull();
                assertTrue(o != null, "every round settles");
                assertEquals(0, inFlight.get(), "counted out exactly once");
                if (cancelled) {
                    decidedByCancel++;
                    assertTrue(o.isCancelled(), "cancel() said it decided: " + o);
                    assertTrue(!started.get() || (undoable && undone.get()),
                            "the engine went on with work whose outcome cancel() had decided");
                } else {
                    decidedByEngine++;
                    assertTrue(started.get(), "cancel() did not decide, so the engine must have");
                    assertTrue(o.isSuccess() || (!undoable && o.isCancelled() && askedKernel.get()), String.valueOf(o));
                }
            }
        } finally {
            two.shutdownNow();
        }
        assertEquals(ROUNDS, decidedByCancel + decidedByEngine);
        assertTrue(decidedByCancel > 0 && decidedByEngine > 0,
                "both orders must come up: cancel decided " + decidedByCancel + ", engine " + decidedByEngine);
    }
}
