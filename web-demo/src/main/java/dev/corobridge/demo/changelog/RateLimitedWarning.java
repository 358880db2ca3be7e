package dev.corobridge.demo.changelog;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.logging.Log;

/**
 * A WARN line at most once per interval, with the count of those left out since the last one: a
 * broker that stays down for minutes writes a line every few seconds, not one per failed call.
 * Thread-safe (lock-free: the thread that moves the deadline writes the line).
 */
public final class RateLimitedWarning {

    private final Log log;
    private final long intervalNanos;
    private final AtomicLong nextAt = new AtomicLong(System.nanoTime());
    private final AtomicLong suppressed = new AtomicLong();

    public RateLimitedWarning(Log log, long interval, TimeUnit unit) {
        this.log = log;
        this.intervalNanos = unit.toNanos(interval);
    }

    /** Writes {@code message} (and the cause's one-line summary) unless a line was written within the interval. */
    public void warn(String message, Throwable cause) {
        long now = System.nanoTime();
        long due = nextAt.get();
        if (now - due < 0 || !nextAt.compareAndSet(due, now + intervalNanos)) {
            suppressed.incrementAndGet();
            return;
        }
        long left = suppressed.getAndSet(0);
        String why = cause == null ? "" : " (" + cause.getClass().getSimpleName() + ": " + cause.getMessage() + ")";
        log.warn(message + why + (left == 0 ? "" : "; " + left + " more like it since the last line"));
    }
}
