package dev.corobridge.demo.web.transport;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The one WARN line about client faults: each fault at the transport level (a request the HTTP
 * decoder refuses, a malformed chunked body, headers or a body that do not arrive in time, a client
 * that closes its connection in the middle of a request) is logged at DEBUG by whoever sees it, and
 * counted here; this class logs at most one WARN line per interval (a minute by default), without a
 * stack, saying how many there were and what the last one was:
 *
 * <pre>
 * 214 client faults (malformed HTTP, timeouts, aborted requests) since the last such line or the start; the last: 400 from the HTTP decoder (...); each is logged at DEBUG by dev.corobridge.demo.web
 * </pre>
 *
 * An operator sees that some client misbehaves without a line per request (a flood of bad requests
 * cannot flood the log), and turns DEBUG on for the details. Faults answered by Spring (a 400 for bad
 * JSON, a 404, a 409) are ordinary answers of the API and are not counted.
 *
 * <p>Algorithm: a fault adds one to a counter; if the interval since the last line has passed, the
 * caller that wins a compare-and-set on the time of the next line takes the counter (swapping in 0)
 * and logs it. The first fault after the start is reported at once. Faults after a line are
 * reported with the next fault that comes once the interval has passed (the count is never lost,
 * only late).
 *
 * <p>A fault counted with its connection ({@link #record(Channel, String)}) marks it, so that the error a
 * request on it then ends with (the application sees the connection close) is not counted twice.
 *
 * <p>Thread-safety: thread-safe and lock-free; {@link #record} is called from event loops and
 * request threads alike. Memory effects: none beyond the atomic counter and time.
 */
public final class ClientFaultSummary {

    private static final Log LOG = LogFactory.getLog(ClientFaultSummary.class);
    private static final AttributeKey<Boolean> COUNTED = AttributeKey.valueOf("corobridge.demo.clientFaultCounted");
    /** Longest description of a fault in the line. */
    private static final int MAX_DESCRIPTION = 160;

    private final long intervalNanos;
    private final LongSupplier nanoClock;
    private final Consumer<String> warn;
    private final AtomicLong pending = new AtomicLong();
    private final AtomicLong nextLineAt;
    private volatile String last = "";

    /** At most one WARN line a minute, to this class's logger. */
    public ClientFaultSummary() {
        this(Duration.ofMinutes(1), System::nanoTime, LOG::warn);
    }

    /**
     * @param interval  the shortest time between two lines; positive
     * @param nanoClock a monotonic clock in nanoseconds ({@link System#nanoTime} outside tests)
     * @param warn      where a line goes
     */
    ClientFaultSummary(Duration interval, LongSupplier nanoClock, Consumer<String> warn) {
        Objects.requireNonNull(interval, "interval");
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("the interval must be positive, was " + interval);
        }
        this.intervalNanos = interval.toNanos();
        this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
        this.warn = Objects.requireNonNull(warn, "warn");
        this.nextLineAt = new AtomicLong(nanoClock.getAsLong());
    }

    /**
     * Counts one client fault, and logs the line if one is due.
     *
     * @param fault what happened, in a few words (client bytes in it are made printable here)
     */
    public void record(String fault) {
        pending.incrementAndGet();
        last = fault;
        long now = nanoClock.getAsLong();
        long due = nextLineAt.get();
        if (now - due >= 0 && nextLineAt.compareAndSet(due, now + intervalNanos)) {
            long n = pending.getAndSet(0);
            if (n > 0) {
                warn.accept(n + (n == 1 ? " client fault" : " client faults")
                        + " (malformed HTTP, timeouts, aborted requests) since the last such line or the start; the last: "
                        + ClientText.printable(last, MAX_DESCRIPTION) + "; each is logged at DEBUG by dev.corobridge.demo.web");
            }
        }
    }

    /** Counts a fault on a connection and marks the connection (see {@link #isCounted}). */
    public void record(Channel channel, String fault) {
        channel.attr(COUNTED).set(Boolean.TRUE);
        record(fault);
    }

    /** Whether a fault on this connection was counted already. */
    public static boolean isCounted(Channel channel) {
        return Boolean.TRUE.equals(channel.attr(COUNTED).get());
    }
}
