package dev.corobridge.bridge;

import dev.corobridge.bridge.internal.BlockingGuard;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.locks.LockSupport;

/**
 * Blocking waits for {@link Awaitable}: register a callback that unparks the waiter, park until the
 * outcome is published. On a virtual thread {@code LockSupport.park} unmounts it from its carrier,
 * so thousands of waiters cost no platform threads.
 *
 * <p><b>Failures, per awaiter.</b> A failed awaitable is awaited by any number of awaiters, and all
 * of them share its one exception. Each awaiter therefore gets an exception of its own that
 * carries its own hop trace ({@link #forAwaiter}): a {@link FailureCopy faithful copy} of the
 * original (same class, message and stack, the original as cause) with a suppressed
 * {@link HopTraceException}, or, for a checked exception rethrown by Java's {@code join()}, a
 * fresh {@link CompletionException} around the original with the trace. The original is never
 * changed. If no faithful copy can be made, the awaiter gets the original as it is, without the
 * trace (which {@code Task.getTrace()} still returns).
 */
final class Waiting {

    private Waiting() {
    }

    /** The outcome, or {@code null} if {@code nanos >= 0} passed first. */
    static <T> Outcome<T> block(Awaitable<T> a, long nanos) throws InterruptedException {
        Outcome<T> o = a.outcomeOrNull();
        if (o != null) {
            return o;
        }
        BlockingGuard.checkMayBlock("join()");
        Thread me = Thread.currentThread();
        Registration r = a.onComplete(x -> LockSupport.unpark(me));
        try {
            long deadline = nanos >= 0 ? System.nanoTime() + nanos : 0;
            while ((o = a.outcomeOrNull()) == null) {
                if (Thread.interrupted()) {
                    throw new InterruptedException("interrupted while awaiting " + a);
                }
                if (nanos >= 0) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        return null;
                    }
                    LockSupport.parkNanos(a, left);
                } else {
                    LockSupport.park(a);
                }
            }
            return o;
        } finally {
            r.dispose();
        }
    }

    /** The value, or the failure rethrown with this awaiter's hop trace attached (see the class comment). */
    static <T> T valueOf(Outcome<T> o, Awaitable<T> source) {
        return switch (o) {
            case Outcome.Success<T> s -> s.value();
            case Outcome.Cancelled<T> c -> throw c.cause();
            case Outcome.Failure<T> f -> throw rethrowable(f.error(), source);
        };
    }

    /**
     * What Java's {@code join()} throws for {@code error}: this awaiter's own unchecked exception
     * (returned) or error (thrown), or a fresh {@link CompletionException} around a checked one;
     * each carries the hop trace, created here, so its stack is this await site. A failure that is
     * itself a {@code CompletionException} (a body that joined another task) is rethrown as a fresh
     * one around its cause, as {@code CompletableFuture.join()} keeps one wrapper, not one more per
     * task boundary.
     */
    static RuntimeException rethrowable(Throwable error, Awaitable<?> source) {
        if (error instanceof CompletionException wrapped && wrapped.getCause() != null) {
            error = wrapped.getCause(); // wrapped afresh below, whatever its kind, as join() found it
        } else if (error instanceof RuntimeException || error instanceof Error) {
            Throwable mine = forAwaiter(error, source);
            if (mine instanceof Error e) {
                throw e;
            }
            return (RuntimeException) mine;
        }
        CompletionException wrapper = new CompletionException(error); // already this awaiter's own
        HopTraceException hops = hopsOf(source);
        if (hops != null) {
            wrapper.addSuppressed(hops);
        }
        return wrapper;
    }

    /**
     * {@code error} as one awaiter receives it: a faithful copy with the awaiter's hop trace
     * suppressed in it, or {@code error} itself, unchanged, if the awaitable keeps no hops or no
     * faithful copy can be made. Never changes {@code error}.
     */
    static Throwable forAwaiter(Throwable error, Awaitable<?> source) {
        HopTraceException hops = hopsOf(source);
        if (hops == null) {
            return error;
        }
        Throwable copy = FailureCopy.of(error);
        if (copy == null) {
            return error;
        }
        copy.addSuppressed(hops);
        return copy.getSuppressed().length > 0 ? copy : error; // suppression disabled: the copy adds nothing
    }

    /** A new hop-trace exception for this awaiter, or {@code null} if the awaitable has no hops. */
    private static HopTraceException hopsOf(Awaitable<?> source) {
        HopTrace trace = source.traceOrNull();
        if (trace == null || trace.getHops().isEmpty()) {
            return null;
        }
        return new HopTraceException(String.valueOf(source), trace);
    }

    static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }
}
