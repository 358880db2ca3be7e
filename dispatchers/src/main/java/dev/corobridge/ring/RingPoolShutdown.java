package dev.corobridge.ring;

import dev.corobridge.bridge.internal.TerminationFuture;
import dev.corobridge.dispatchers.internal.Deadlines;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.IoEventLoopGroup;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * A pool's two-phase shutdown and its termination, and the registry of what the pool holds open
 * (files, connections, servers) that shutdown must close.
 *
 * <p><b>Algorithm.</b>
 * <ul>
 *   <li><b>Phase 1</b> ({@link #start}, on the caller, once): mark the pool shut down (new operations
 *       are refused from now on), ask every ring's engine to cancel what is in flight (each awaiter
 *       resumes with the shutdown exception when its completion arrives), fail the waiting reads and
 *       writes of every open connection and close it (all marked first, so that a closing one cannot
 *       show a peer here an end), settle every connect in flight as shut down and close its channel,
 *       and close every server.</li>
 *   <li><b>Phase 2</b> (a daemon thread {@code <pool>-shutdown}): wait for the listening sockets to
 *       close (5 s each), for nothing to be in flight (polling every millisecond until the grace
 *       period's deadline: rare and short), close every file still open and wait for each close
 *       (5 s; closing also ends a fallback call blocked in the file), release the engines, stop the
 *       loops if the pool owns them (10 s) and the fallback file threads (10 s). Every step runs
 *       even if an earlier one failed; what failed is collected, and the termination completes
 *       exceptionally with all of it ({@link RingPoolTerminationException}), or normally if
 *       nothing did.</li>
 *   <li><b>Registry races.</b> A resource registered after phase 1 began (its open or accept
 *       raced with the shutdown) is closed at once by {@code remember}: phase 1 took its snapshot
 *       after setting the flag, and {@code remember} checks the flag after adding, so every resource
 *       is seen by one of the two. A file is closed exactly once ({@link RingFile#markClosed()}).</li>
 * </ul>
 *
 * <p><b>Memory effects.</b> The shut-down flag is volatile and set before phase 1 touches anything;
 * everything phase 2 did <i>happens-before</i> the termination future completes. Every caller gets
 * that one future, so a caller that sees the pool terminated finds its future complete, and the
 * other way round.
 *
 * <p><b>Thread-safety.</b> Safe from any thread; {@link #start} runs once (synchronised), later
 * calls return the same termination.
 */
final class RingPoolShutdown {

    private static final System.Logger LOG = System.getLogger(RingPool.class.getName());

    private final String name;
    private final RingPlacement rings;
    /** The loops phase 2 stops; {@code null} for an adopted group, whose owner stops it. */
    private final IoEventLoopGroup ownedGroup;
    private final ThreadPoolExecutor fileExecutor;
    private final Set<RingFile> openFiles = ConcurrentHashMap.newKeySet();
    private final Set<RingConnection> openConnections = ConcurrentHashMap.newKeySet();
    private final Set<RingServer> openServers = ConcurrentHashMap.newKeySet();
    /** Connects in flight, with their channels: the loops' stop would end them without a word. */
    private final Map<RingOp<RingConnection>, Channel> connecting = new ConcurrentHashMap<>();
    /** Handed to every caller as it is: one future, which only this class completes ({@link TerminationFuture}). */
    private final TerminationFuture<Void> termination = new TerminationFuture<>();
    private volatile boolean shutdown;

    /**
     * @param ownedGroup   the loops phase 2 stops; {@code null} for an adopted group
     * @param fileExecutor the fallback's file threads, stopped in phase 2; {@code null} with io_uring
     */
    RingPoolShutdown(String name, RingPlacement rings, IoEventLoopGroup ownedGroup, ThreadPoolExecutor fileExecutor) {
        this.name = name;
        this.rings = rings;
        this.ownedGroup = ownedGroup;
        this.fileExecutor = fileExecutor;
    }

    boolean isShutdown() {
        return shutdown;
    }

    boolean isTerminated() {
        return termination.isDone();
    }

    /** Files opened through the pool and not closed. */
    int openFiles() {
        return openFiles.size();
    }

    // ------------------------------------------------------------------ the registry

    void remember(RingFile f) {
        openFiles.add(f);
        if (shutdown && f.markClosed()) {
            forget(f);
            f.getRing().engine().closeNow(f); // raced with shutdown: do not leak it
        }
    }

    void forget(RingFile f) {
        openFiles.remove(f);
    }

    /** Tracks an open connection until its channel closes; shutdown fails its waiters and closes it. */
    void remember(RingConnection c) {
        openConnections.add(c);
        c.channel().closeFuture().addListener(f -> openConnections.remove(c));
        if (shutdown) {
            c.shutDownNow(refusal()); // raced with shutdown
        }
    }

    /** Tracks a server until it closes; shutdown closes it (an adopted group's loops would keep accepting). */
    void remember(RingServer s) {
        openServers.add(s);
        if (shutdown) {
            s.closeNow();
        }
    }

    void forget(RingServer s) {
        openServers.remove(s);
    }

    /**
     * Tracks a connect in flight until {@link #forgetConnect}; shutdown settles it as shut down and
     * closes its channel (a loop that stops with the connect in it may never report its end).
     */
    void rememberConnect(RingOp<RingConnection> op, Channel channel) {
        connecting.put(op, channel);
        if (shutdown) {
            endConnect(op, channel, refusal()); // raced with shutdown
        }
    }

    void forgetConnect(RingOp<RingConnection> op) {
        connecting.remove(op);
    }

    private void endConnect(RingOp<RingConnection> op, Channel channel, String reason) {
        connecting.remove(op);
        op.shutDown(reason); // nothing if it settled first
        channel.close(); // a connection made after all is closed by the connect's listener too
    }

    // ------------------------------------------------------------------ the shutdown

    /** Phase 1 now, phase 2 on a thread of its own; see the class comment. Returns the termination. */
    synchronized CompletableFuture<Void> start(Duration gracePeriod) {
        if (shutdown) {
            return termination;
        }
        shutdown = true;
        String reason = "RingPool '" + name + "' is shutting down";
        for (Ring r : rings.all()) {
            r.engine().cancelAll(reason);
        }
        // Sockets: waiting reads and writes fail with the shutdown exception (never left hanging,
        // also when the loops are adopted and keep running); servers stop accepting.
        List<RingConnection> connections = List.copyOf(openConnections);
        for (RingConnection c : connections) {
            c.markShutDown(reason); // all first: a closing one must not show a peer here an end
        }
        for (RingConnection c : connections) {
            c.shutDownNow(reason);
        }
        // Connects in flight end as shut down now: their loops may stop before telling them.
        for (Map.Entry<RingOp<RingConnection>, Channel> c : List.copyOf(connecting.entrySet())) {
            endConnect(c.getKey(), c.getValue(), reason);
        }
        List<ChannelFuture> serverCloses = new ArrayList<>();
        for (RingServer s : List.copyOf(openServers)) {
            serverCloses.add(s.closeNow());
        }
        long deadline = System.nanoTime() + Deadlines.saturatedNanos(gracePeriod); // any length: no overflow
        Thread.ofPlatform().name(name + "-shutdown").daemon(true)
                .start(() -> finish(deadline, gracePeriod, serverCloses));
        return termination;
    }

    /**
     * Phase 2, on the shutdown thread. Every step runs even if an earlier one failed; what failed is
     * collected, and termination completes exceptionally with all of it ({@link RingPoolTerminationException}).
     */
    private void finish(long deadline, Duration gracePeriod, List<ChannelFuture> serverCloses) {
        List<String> problems = new ArrayList<>();
        List<Throwable> errors = new ArrayList<>();
        try {
            for (ChannelFuture f : serverCloses) {
                // Listening sockets closed on their loops before the loops go.
                if (!f.awaitUninterruptibly(5_000)) {
                    problems.add("the listening socket " + f.channel() + " did not close within 5 s");
                } else if (!f.isSuccess()) {
                    problems.add("closing the listening socket " + f.channel() + " failed: " + f.cause());
                    errors.add(f.cause());
                }
            }
            while (rings.inFlight() > 0 && System.nanoTime() - deadline < 0) {
                LockSupport.parkNanos(1_000_000); // phase 2: drain (rare, short: polling is fine here)
            }
            // Closing the files also ends the fallback's blocking calls still inside them.
            List<RingOp<Void>> closes = new ArrayList<>();
            for (RingFile f : List.copyOf(openFiles)) {
                forget(f);
                if (f.markClosed()) {
                    closes.add(f.getRing().engine().closeNow(f));
                }
            }
            for (RingOp<Void> c : closes) {
                try {
                    c.join(java.time.Duration.ofSeconds(5)); // the CLOSE must reach the kernel before the ring goes
                } catch (Exception e) {
                    problems.add("close " + c.getTarget() + " failed: " + e);
                    errors.add(e);
                }
            }
            for (Ring r : rings.all()) {
                r.engine().release();
            }
            if (ownedGroup != null
                    && !ownedGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS)) {
                problems.add("the event loops did not stop within 10 s");
            }
            if (fileExecutor != null) {
                fileExecutor.shutdown();
                if (!fileExecutor.awaitTermination(10, TimeUnit.SECONDS)) {
                    problems.add("the fallback file threads did not stop within 10 s");
                }
            }
            int left = rings.inFlight();
            if (left > 0) {
                problems.add(left + (left == 1 ? " operation was" : " operations were")
                        + " still in flight after the grace period of " + gracePeriod + " and the files' close;"
                        + " abandoned (their awaiters may never resume)");
            }
        } catch (Throwable e) {
            problems.add("shutdown failed: " + e);
            errors.add(e);
        }
        if (problems.isEmpty()) {
            termination.settle(null);
        } else {
            RingPoolTerminationException failed = new RingPoolTerminationException(name, problems);
            errors.forEach(failed::addSuppressed);
            LOG.log(System.Logger.Level.WARNING, failed.getMessage());
            termination.fail(failed);
        }
    }

    /**
     * Waits for termination; {@code true} only if it was clean. A timeout longer than a year waits
     * without limit, a negative one not at all.
     */
    boolean awaitTermination(Duration timeout) throws InterruptedException {
        try {
            long nanos = timeout.isNegative() ? 0 : timeout.compareTo(Duration.ofDays(365)) > 0 ? Long.MAX_VALUE : timeout.toNanos();
            termination.get(nanos, TimeUnit.NANOSECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            return false; // terminated, but not cleanly: see the future's exception
        }
    }

    /** Whether termination completed, not cleanly. */
    boolean terminationFailed() {
        return termination.isCompletedExceptionally();
    }

    /** Why an operation is refused once the pool is shut down. */
    String refusal() {
        return "RingPool '" + name + "' is shut down";
    }
}
