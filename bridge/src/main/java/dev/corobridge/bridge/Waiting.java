package dev.corobridge.bridge;

import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.locks.LockSupport;

/**
 * Blocking waits for {@link Awaitable}: register a callback that unparks the waiter, park until the
 * outcome is published. On a virtual thread {@code LockSupport.park} unmounts it from its carrier,
 * so thousands of waiters cost no platform threads.
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
        BlockingGuard.checkMayBlock("await()");
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

    /** The value, or the failure rethrown with the hop trace attached. */
    static <T> T valueOf(Outcome<T> o, Awaitable<T> source) {
        return switch (o) {
            case Outcome.Success<T> s -> s.value();
            case Outcome.Cancelled<T> c -> throw c.cause();
            case Outcome.Failure<T> f -> throw rethrowable(f.error(), source);
        };
    }

    static RuntimeException rethrowable(Throwable error, Awaitable<?> source) {
        HopTrace trace = source.traceOrNull();
        if (trace != null && !trace.hops().isEmpty()) {
            attachOnce(error, new HopTraceException(String.valueOf(source), trace));
        }
        if (error instanceof RuntimeException re) {
            return re;
        }
        if (error instanceof Error e) {
            throw e;
        }
        return new CompletionException(error);
    }

    private static void attachOnce(Throwable error, HopTraceException hops) {
        synchronized (error) {
            for (Throwable s : error.getSuppressed()) {
                if (s instanceof HopTraceException) {
                    return;
                }
            }
            error.addSuppressed(hops);
        }
    }

    static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }
}
