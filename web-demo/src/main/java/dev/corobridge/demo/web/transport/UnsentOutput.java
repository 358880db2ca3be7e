package dev.corobridge.demo.web.transport;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;

import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The answers written to the service's connections that their clients have stopped taking, held
 * within one budget for all connections ({@code demo.http.max-unsent-output}). A client that asks
 * for a large answer (a board's stream or JSON) and does not read it makes the server keep that
 * answer in its connection's outbound buffer (Netty copies it into direct memory to write it); many
 * such clients would hold gigabytes.
 *
 * <p>Algorithm: a few times a second a check looks at the connections that cannot take more
 * ({@code isWritable()} false). Each such connection has a mark (the bytes waiting in its outbound
 * buffer when it last made progress, less what was written of a message in progress) and the time
 * of that progress; it makes progress when what waits has fallen at least {@value #PROGRESS_BYTES} bytes below the mark (its client took that
 * much, net of what the service added), or when it is writable. A connection that made no progress
 * for {@link #STALL} (its client took less than {@value #PROGRESS_BYTES} bytes in a second) is
 * stalled, and its waiting bytes count. When the stalled connections' bytes sum to more than the
 * budget, the check closes them, the one holding the most first, until the sum is within: each is a
 * client's fault, logged at DEBUG and counted in the {@link ClientFaultSummary}. A client that is
 * taking a large answer is never closed for it, however much of it is still waiting (on a loaded
 * machine a reader falls behind for a moment); one that stops reading is closed a second or so
 * after it took its last bytes, once the stalled ones together hold more than the budget.
 *
 * <p><b>Thread-safety.</b> Connections are added from their event loops and leave the map when
 * they close; checks run one at a time (on a thread of its own, or a caller's in tests). A check
 * observes each connection that cannot take more on its event loop (the bytes written of a message
 * in progress are known only there), which alone reads and writes that connection's mark; the
 * check waits for the observations (the future's completion orders them before its reading), and
 * closing is handed to the event loop by {@link Channel#close()}.
 */
public final class UnsentOutput implements AutoCloseable {

    private static final Log LOG = LogFactory.getLog(UnsentOutput.class);
    /** A connection that takes less than this in {@link #STALL} is stalled. */
    static final int PROGRESS_BYTES = 64 * 1024;
    /** How long a connection may go without progress before its waiting bytes count. */
    static final Duration STALL = Duration.ofSeconds(1);
    /** How long a check waits for its observations on the event loops. */
    private static final Duration OBSERVATION_WAIT = Duration.ofSeconds(1);

    private final long budgetBytes;
    private final ClientFaultSummary faults;

    private final Map<Channel, Progress> connections = new ConcurrentHashMap<>();
    private final LongSupplier nanoClock;
    private final ScheduledExecutorService checker;

    /**
     * Starts checking every {@code interval}.
     *
     * @param budgetBytes the most all connections together may hold unsent; positive
     */
    public UnsentOutput(long budgetBytes, Duration interval, ClientFaultSummary faults) {
        this(budgetBytes, interval, faults, System::nanoTime);
    }

    /** As the public constructor, with {@code nanoClock} for the time (a monotonic clock in nanoseconds). */
    UnsentOutput(long budgetBytes, Duration interval, ClientFaultSummary faults, LongSupplier nanoClock) {
        if (budgetBytes <= 0) {
            throw new IllegalArgumentException("the budget must be positive, was " + budgetBytes);
        }
        this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
        this.budgetBytes = budgetBytes;
        this.faults = faults;
        this.checker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "unsent-output-check");
            t.setDaemon(true);
            return t;
        });
        long every = interval.toNanos();
        checker.scheduleWithFixedDelay(this::checkReportingFailures, every, every, TimeUnit.NANOSECONDS);
    }

    /** Watches {@code connection} until it closes. */
    void add(Channel connection) {
        connections.put(connection, new Progress());
        connection.closeFuture().addListener(f -> connections.remove(connection));
    }

    /** The connections watched (open ones). */
    int size() {
        return connections.size();
    }

    private void checkReportingFailures() {
        try {
            check();
        } catch (InterruptedException stopping) {
            Thread.currentThread().interrupt(); // close() stops the checker
        } catch (RuntimeException e) {
            LOG.error("Checking the connections' unsent output failed; checked again shortly", e); // a later run may succeed
        }
    }

    /**
     * One check: has every connection that cannot take more (or was seen so) observed on its event
     * loop, waits for those observations (at most a second: a busy loop's connection is judged on its
     * last one), then closes stalled connections until their unsent output is within the budget;
     * returns how many it closed. One check runs at a time.
     */
    synchronized int check() throws InterruptedException {
        record Held(Channel connection, long bytes) {
        }
        long now = nanoClock.getAsLong();
        List<Future<?>> observed = new ArrayList<>();
        for (Map.Entry<Channel, Progress> e : connections.entrySet()) {
            Channel c = e.getKey();
            Progress p = e.getValue();
            if (!c.isWritable() || p.seen) {
                try {
                    observed.add(c.eventLoop().submit(() -> p.observe(c, now)));
                } catch (RejectedExecutionException loopShutDown) {
                    // its loop is shutting down, and the connection with it
                }
            }
        }
        long deadline = System.nanoTime() + OBSERVATION_WAIT.toNanos();
        for (Future<?> f : observed) {
            try {
                f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (ExecutionException | TimeoutException | CancellationException notNow) {
                // judged on its last observation
            }
        }
        List<Held> held = new ArrayList<>();
        long total = 0;
        for (Map.Entry<Channel, Progress> e : connections.entrySet()) {
            long bytes = e.getValue().stalledBytes;
            if (bytes > 0) {
                held.add(new Held(e.getKey(), bytes));
                total += bytes;
            }
        }
        if (total <= budgetBytes) {
            return 0;
        }
        held.sort(Comparator.comparingLong(Held::bytes).reversed());
        int closed = 0;
        for (Held h : held) {
            if (total <= budgetBytes) {
                break;
            }
            String fault = "a connection closed holding " + h.bytes() + " bytes of answers its client stopped taking (it "
                    + "took less than " + PROGRESS_BYTES + " bytes in " + STALL.toMillis() + " ms; all stalled connections held "
                    + total + ", above demo.http.max-unsent-output " + budgetBytes + ")";
            if (LOG.isDebugEnabled()) {
                LOG.debug(h.connection() + ": " + fault);
            }
            faults.record(h.connection(), fault);
            h.connection().close(); // leaves the map when closed (add's listener)
            total -= h.bytes();
            closed++;
        }
        return closed;
    }

    /**
     * A connection's progress, observed on its event loop (where its outbound buffer is consistent:
     * the bytes of a message partly written are known only there). {@link #seen} and
     * {@link #stalledBytes} are read by checks; the rest is confined to the loop.
     */
    private static final class Progress {
        volatile boolean seen;
        /** The bytes waiting if the connection is stalled, else 0. */
        volatile long stalledBytes;
        private long mark;
        private long since;

        /** Notes what {@code c}'s buffer holds at {@code now} (the check's time); on {@code c}'s event loop. */
        void observe(Channel c, long now) {
            ChannelOutboundBuffer out = c.unsafe().outboundBuffer();
            // Netty counts a message as pending until it is written whole: subtract what was written of the current one.
            long waiting = out == null ? 0 : Math.max(0, out.totalPendingWriteBytes() - out.currentProgress());
            if (!c.isWritable() && c.isActive()) {
                if (!seen || waiting <= mark - PROGRESS_BYTES) {
                    seen = true;
                    mark = waiting;
                    since = now;
                    stalledBytes = 0;
                } else {
                    mark = Math.max(mark, waiting); // what the service added since is not progress
                    stalledBytes = now - since >= STALL.toNanos() ? waiting : 0;
                }
            } else {
                seen = false;
                stalledBytes = 0;
            }
        }
    }

    @Override
    public void close() {
        checker.shutdownNow();
    }

    @Override
    public String toString() {
        return "UnsentOutput[budget " + budgetBytes + " bytes, " + connections.size() + " connections]";
    }
}
