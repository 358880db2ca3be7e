package dev.corobridge.demo.web.transport;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * The web server's connections as the shutdown drain sees them.
 *
 * <p>A connection is <em>busy</em> from the moment it is accepted until its first response has been
 * written, and again from each further request it carries until that request's response has been
 * written; in between it is <em>idle</em> (an HTTP/1.1 keep-alive connection waiting for its
 * client). Closing a connection that is not idle would throw away a request the client has sent or
 * is sending; closing an idle one does not. The tracker counts open and busy connections, remembers
 * when anything last happened on any of them (accepted, request read, response written, closed),
 * and counts the requests refused with 503 while the service shuts down. The
 * {@link ExchangeHandler} of each connection reports the events.
 *
 * <p><b>Thread-safety and memory effects.</b> Every method may be called from any thread: the events
 * come from the Netty event loops, the queries and {@link #awaitIdle} from the shutdown drain. The
 * counters are atomic variables, and every event records its time before it changes the busy count,
 * so a thread that sees the busy count an event left also sees that event's time.
 *
 * <p><b>Implementation.</b> The last activity is a {@link LongAccumulator} of clock readings
 * ({@link System#nanoTime()}) under {@code max}, so concurrent reports never move it back.
 * {@link #awaitIdle} waits on a monitor that the transition of the busy count to zero notifies.
 * The notifying side (an event loop) takes the monitor only when a waiter has announced itself, so
 * the loops never contend on it in normal operation; a waiter announces itself before it reads the
 * busy count, and a notifier lowers the count before it reads the number of waiters, both through
 * sequentially consistent atomics, so one of the two always sees the other and no wake-up is lost.
 */
public final class ConnectionTracker {

    private final LongSupplier clock;
    private final AtomicInteger open = new AtomicInteger();
    private final AtomicInteger busy = new AtomicInteger();
    private final LongAccumulator lastActivity;
    private final LongAdder refused = new LongAdder();
    private final AtomicInteger waiters = new AtomicInteger();
    private final Object monitor = new Object();

    public ConnectionTracker() {
        this(System::nanoTime);
    }

    /** @param clock the time source, in nanoseconds like {@link System#nanoTime()} (tests pass their own) */
    ConnectionTracker(LongSupplier clock) {
        this.clock = clock;
        this.lastActivity = new LongAccumulator(Math::max, clock.getAsLong());
    }

    /** A connection was accepted: open, and busy until its first response has been written. */
    void opened() {
        open.incrementAndGet();
        touch();
        busy.incrementAndGet();
    }

    /**
     * A connection was closed.
     *
     * @param wasBusy whether it was busy (accepted or carrying a request, and not answered)
     */
    void closed(boolean wasBusy) {
        touch();
        open.decrementAndGet();
        if (wasBusy) {
            lowerBusy();
        }
    }

    /** Open connections, busy or idle. */
    public int open() {
        return open.get();
    }

    /** An idle connection carries a new request: busy until its response has been written. */
    void requestStarted() {
        touch();
        busy.incrementAndGet();
    }

    /** A busy connection's response has been written: idle. */
    void answered() {
        touch();
        lowerBusy();
    }

    /** Connections accepted and not yet answered, or carrying a request not yet answered. */
    public int busy() {
        return busy.get();
    }

    private void lowerBusy() {
        if (busy.decrementAndGet() == 0 && waiters.get() > 0) {
            synchronized (monitor) {
                monitor.notifyAll();
            }
        }
    }

    /** A request was refused with 503 while the service shuts down. */
    void refused() {
        refused.increment();
    }

    /** Requests refused with 503 while the service shuts down, so far. */
    public long refusedCount() {
        return refused.sum();
    }

    /** The clock reading of the last event on any connection (the tracker's creation if none). */
    public long lastActivityNanos() {
        return lastActivity.get();
    }

    private void touch() {
        lastActivity.accumulate(clock.getAsLong());
    }

    /** The tracker's clock, in nanoseconds. */
    public long nanoTime() {
        return clock.getAsLong();
    }

    /**
     * Waits until no connection is busy or the clock passes {@code untilNanos}, whichever comes
     * first; returns at once if none is busy.
     *
     * @param untilNanos a reading of {@link #nanoTime()}
     * @return whether no connection is busy
     * @throws InterruptedException if the thread was interrupted while waiting
     */
    public boolean awaitIdle(long untilNanos) throws InterruptedException {
        waiters.incrementAndGet();
        try {
            synchronized (monitor) {
                while (busy.get() > 0) {
                    long left = untilNanos - clock.getAsLong();
                    if (left <= 0) {
                        return false;
                    }
                    TimeUnit.NANOSECONDS.timedWait(monitor, left);
                }
                return true;
            }
        } finally {
            waiters.decrementAndGet();
        }
    }

    @Override
    public String toString() {
        return "ConnectionTracker[open=" + open.get() + ", busy=" + busy.get() + ", refused=" + refused.sum() + "]";
    }
}
