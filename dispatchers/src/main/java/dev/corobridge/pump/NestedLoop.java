package dev.corobridge.pump;

import dev.corobridge.context.internal.ClearedContext;
import dev.corobridge.dispatchers.internal.Deadlines;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/**
 * The secondary loop behind {@link MessagePump#pumpUntil}: pump code that must wait synchronously
 * keeps the pump dispatching, like {@code java.awt.SecondaryLoop}, instead of blocking it.
 *
 * <p><b>Algorithm.</b> Until the condition holds or the timeout passes: check the condition, run one
 * iteration of the {@link PumpLoop} (tasks, timers, completions, in the usual order, so work posted
 * meanwhile is neither lost nor reordered per producer), and if nothing ran, sleep through the pump's
 * own gate until the next timer, the timeout, or at most {@value #NESTED_POLL_MILLIS} ms: a condition
 * changed by another thread without posting to the pump is seen within that poll. The task sequence
 * steps on entry and exit ({@link PumpCounters#stepTaskSequence()}), so the stall watchdog sees the
 * pump dispatching, not stalled, while a nested loop runs. Nesting is bounded by
 * {@link PumpConfig#maxNestingDepth()}. On a {@link ManualPump} it never waits: it runs what is ready
 * and returns.
 *
 * <p><b>Context.</b> The caller is a step of some task, with that task's context on the thread (its
 * MDC, the thread-locals registered with Micrometer's {@code ContextRegistry}, its observation's
 * scope). The work the nested loop runs is unrelated to it, so the loop takes that context off the
 * thread while it runs ({@code ClearedContext}) and puts it back before it returns: every piece of
 * work runs with the context it brought (a task's, a coroutine's elements) or none, and a task
 * created there captures nothing of the caller's. The condition is checked with the context
 * cleared too.
 *
 * <p><b>Memory effects.</b> Those of the work it runs; a stage completed on another thread is seen
 * through a {@link CompletableFuture}.
 *
 * <p><b>Thread-safety.</b> Pump thread only ({@link MessagePump#checkAccess()} is checked first).
 */
final class NestedLoop {

    /** How often a nested loop re-checks a condition that may be changed off the pump. */
    private static final long NESTED_POLL_MILLIS = 10;
    private static final long NESTED_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(NESTED_POLL_MILLIS);

    private final MessagePump pump;
    private final PumpLoop loop;
    private final int maxDepth;

    /** Pump thread: how many nested loops run now. */
    private int depth;

    NestedLoop(MessagePump pump, PumpLoop loop) {
        this.pump = pump;
        this.loop = loop;
        this.maxDepth = pump.config.maxNestingDepth();
    }

    /** See {@link MessagePump#pumpUntil(BooleanSupplier, Duration)}. */
    boolean pumpUntil(BooleanSupplier done, Duration timeout) {
        Objects.requireNonNull(done, "done");
        Objects.requireNonNull(timeout, "timeout");
        pump.checkAccess();
        if (depth >= maxDepth) {
            throw new IllegalStateException("MessagePump '" + pump.name + "': pumpUntil nested " + (depth + 1)
                    + " deep, above maxNestingDepth=" + maxDepth
                    + "; wait asynchronously instead (a coroutine on the pump dispatcher, or a callback)");
        }
        if (pump.isTerminated()) {
            throw new IllegalStateException("MessagePump '" + pump.name + "' is terminated; pumpUntil cannot dispatch");
        }
        PumpClock clock = pump.clock;
        long deadline = clock.nanoTime() + Deadlines.saturatedNanos(timeout);
        ClearedContext callersContext = ClearedContext.clearHere(); // the nested work must not see it
        depth++;
        pump.counters.stepTaskSequence(); // even: dispatching, not stalled
        Throwable failed = null;
        try {
            return dispatchUntil(done, deadline);
        } catch (Throwable e) {
            failed = e;
            throw e;
        } finally {
            depth--;
            pump.counters.stepTaskSequence(); // odd again: the task that called pumpUntil resumes
            try {
                callersContext.close();
            } catch (Throwable e) {
                if (failed == null) {
                    throw e;
                }
                failed.addSuppressed(e); // the loop's own failure goes first
            }
        }
    }

    /** The loop of {@link #pumpUntil(BooleanSupplier, Duration)}: whether {@code done} held before {@code deadline}. */
    private boolean dispatchUntil(BooleanSupplier done, long deadline) {
        PumpClock clock = pump.clock;
        while (true) {
            if (done.getAsBoolean()) {
                return true;
            }
            long now = clock.nanoTime();
            if (now - deadline >= 0) {
                return false;
            }
            if (loop.runIteration(false) == 0 && !done.getAsBoolean()) {
                if (!idle(deadline)) {
                    return done.getAsBoolean();
                }
            }
        }
    }

    /** See {@link MessagePump#pumpUntil(CompletionStage, Duration)}. */
    <T> T pumpUntil(CompletionStage<T> stage, Duration timeout) throws TimeoutException {
        Objects.requireNonNull(stage, "stage");
        Objects.requireNonNull(timeout, "timeout");
        pump.checkAccess();
        CompletableFuture<T> done = new CompletableFuture<>();
        stage.whenComplete((v, e) -> {
            if (e != null) {
                done.completeExceptionally(e);
            } else {
                done.complete(v);
            }
            if (!pump.isCurrentThread()) {
                pump.nudge(); // wake the nested loop now rather than at its next poll
            }
        });
        if (!pumpUntil(done::isDone, timeout)) {
            throw new TimeoutException("MessagePump '" + pump.name + "': stage not complete after " + timeout);
        }
        try {
            return done.get();
        } catch (ExecutionException e) {
            Throwable cause = MessagePump.unwrap(e.getCause());
            if (cause instanceof CancellationException ce) {
                throw ce;
            }
            throw new CompletionException(cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CompletionException(e);
        }
    }

    /**
     * Nothing ran: no spin, park at most until {@code deadline} or the next poll. Returns whether to
     * go on ({@code false} on a manual pump, whose nested loops must not wait for a clock nobody moves).
     */
    private boolean idle(long deadline) {
        long limit = Math.min(deadline, pump.clock.nanoTime() + NESTED_POLL_NANOS);
        loop.sleep(limit);
        return loop.waitsForRealTime();
    }
}
