package dev.corobridge.demo.web.transport;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The answers written to the service's connections that their clients have not taken yet, held
 * within one budget for all connections ({@code demo.http.max-unsent-output}). A client that asks
 * for a large answer (a board's stream or JSON) and does not read it makes the server keep that
 * answer in its connection's outbound buffer (Netty copies it into direct memory to write it); many
 * such clients would hold gigabytes. So a few times a second this sums the bytes waiting in the
 * outbound buffers of the connections that cannot take more ({@code isWritable()} false), and when
 * the sum is above the budget it closes those connections, the one holding the most first, until
 * it is within: each is a client's fault, logged at DEBUG and counted in the
 * {@link ClientFaultSummary}. A client that reads is not held up: its buffer drains and is not
 * counted once the connection is writable again.
 *
 * <p><b>Thread-safety.</b> Connections are added from their event loops and leave the set when
 * they close; the check runs on a thread of its own and reads each connection's pending byte count
 * (a volatile field of Netty's outbound buffer) without its event loop; closing is handed to the
 * event loop by {@link Channel#close()}.
 */
public final class UnsentOutput implements AutoCloseable {

    private static final Log LOG = LogFactory.getLog(UnsentOutput.class);

    private final long budgetBytes;
    private final ClientFaultSummary faults;
    private final Set<Channel> connections = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService checker;

    /**
     * Starts checking every {@code interval}.
     *
     * @param budgetBytes the most all connections together may hold unsent; positive
     */
    public UnsentOutput(long budgetBytes, Duration interval, ClientFaultSummary faults) {
        if (budgetBytes <= 0) {
            throw new IllegalArgumentException("the budget must be positive, was " + budgetBytes);
        }
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
        connections.add(connection);
        connection.closeFuture().addListener(f -> connections.remove(connection));
    }

    /** The connections watched (open ones). */
    int size() {
        return connections.size();
    }

    private void checkReportingFailures() {
        try {
            check();
        } catch (RuntimeException e) {
            LOG.error("Checking the connections' unsent output failed; checked again shortly", e); // a later run may succeed
        }
    }

    /** One check: closes connections until their unsent output is within the budget; returns how many it closed. */
    int check() {
        record Held(Channel connection, long bytes) {
        }
        List<Held> held = new ArrayList<>();
        long total = 0;
        for (Channel c : connections) {
            if (c.isWritable()) {
                continue;
            }
            ChannelOutboundBuffer out = c.unsafe().outboundBuffer();
            long bytes = out == null ? 0 : out.totalPendingWriteBytes();
            if (bytes > 0) {
                held.add(new Held(c, bytes));
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
            String fault = "a connection closed holding " + h.bytes() + " bytes of answers its client did not read (all "
                    + "connections held " + total + ", above demo.http.max-unsent-output " + budgetBytes + ")";
            if (LOG.isDebugEnabled()) {
                LOG.debug(h.connection() + ": " + fault);
            }
            faults.record(h.connection(), fault);
            h.connection().close(); // leaves the set when closed (add's listener)
            total -= h.bytes();
            closed++;
        }
        return closed;
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
