package dev.corobridge.ring;

import io.netty.channel.EventLoop;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoEventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringIoHandle;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringIoHandlerConfig;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.FastThreadLocalThread;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * A pool of io_uring background contexts ({@link Ring}s) for file I/O, each a Netty
 * {@link IoEventLoop} with its own thread, ring and eventfd.
 *
 * <h2>Placement</h2>
 * {@link #next()} round-robin; {@link #forKey(Object)} sticky (the same key always gets the same
 * ring, so every operation on one file or connection stays on one ring and is ordered there);
 * {@link #leastLoaded()} the ring with the fewest operations in flight. {@link #open} places files
 * by path.
 *
 * <h2>Sharing Reactor Netty's loops</h2>
 * {@link #adopt(IoEventLoopGroup, RingPoolConfig)} builds a pool over an existing group's loops
 * (e.g. the io_uring loops Reactor Netty already runs under WebFlux) instead of starting threads: an
 * application then has one set of I/O threads. An adopted group is not owned: {@link #shutdown()}
 * drains and closes the pool's own operations and files but leaves the loops running. If the
 * group's loops are not io_uring loops, the adopted pool uses the fallback engine on them.
 *
 * <h2>Fallback</h2>
 * Where io_uring is unavailable (old kernel, container seccomp — Docker's default profile blocks
 * it) or {@code -Dcorobridge.ring.fallback=true}, the same API runs on NIO event loops plus a
 * bounded blocking executor for file operations; one log line carries the reason
 * ({@link IoUring#unavailabilityCause()}), and {@link #transport()} / {@link #metrics()} report it.
 *
 * <h2>Netty settings</h2>
 * Starting a pool with its own io_uring loops sets {@code -Dio.netty.iouring.pollAddMultishotEnabled=false}
 * (JVM-wide, logged once at INFO) unless the application set that property: ring socket reads need
 * Netty's one-shot POLL_ADD to see a peer's reset or end (see {@code NettyUringSettings}). Loading
 * the class sets nothing; an adopted group's Netty was initialised by its owner, so there the pool
 * only warns if multishot POLL_ADD is on.
 *
 * <h2>Shutdown (two-phase)</h2>
 * {@link #shutdown(Duration)}: (1) refuse new operations and ask the kernel to cancel every one in
 * flight — their awaiters are resumed with a {@link dev.corobridge.bridge.ContextShutdownException}
 * when each completion arrives, never left hanging; (2) wait until nothing is in flight or the grace
 * period passes, close every file still open (which also ends a fallback call blocked in one: it
 * settles with the shutdown exception), then stop the loops (when owned). Sockets: phase (1) also
 * closes every {@link RingServer} and {@link RingConnection} of the pool; a read or write waiting on
 * one (or called later) fails with the same shutdown exception. Termination is <i>clean</i> when
 * every step worked; otherwise — loops or fallback file threads that did not stop in time,
 * operations still in flight at the end (an operation the kernel would not give up, a fallback call
 * that cannot be interrupted), a file or listening socket that did not close — the termination
 * future completes exceptionally with a {@link RingPoolTerminationException} listing it, and
 * {@link #awaitTermination} returns {@code false}.
 *
 * <p><b>Thread-safety.</b> Safe from any thread.
 */
public final class RingPool implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(RingPool.class.getName());

    private final RingPoolConfig config;
    private final Transport transport;
    private final String fallbackReason;
    private final IoEventLoopGroup group;
    private final boolean ownsGroup;
    private final ThreadPoolExecutor fileExecutor;
    private final List<Ring> rings;
    private final RingMetricsRecorder metrics = new RingMetricsRecorder();
    private final Set<RingFile> openFiles = ConcurrentHashMap.newKeySet();
    private final Set<RingConnection> openConnections = ConcurrentHashMap.newKeySet();
    private final Set<RingServer> openServers = ConcurrentHashMap.newKeySet();
    private final AtomicInteger cursor = new AtomicInteger();
    private final CompletableFuture<Void> termination = new CompletableFuture<>();
    private volatile boolean shutdown;

    private RingPool(RingPoolConfig config, IoEventLoopGroup adopted) {
        this.config = Objects.requireNonNull(config, "config");
        String reason = "";
        boolean uring;
        if (adopted != null) {
            this.group = adopted;
            this.ownsGroup = false;
            EventExecutor first = adopted.next();
            uring = !config.forceFallback() && first instanceof IoEventLoop l && l.isCompatible(IoUringIoHandle.class);
            if (!uring) {
                reason = config.forceFallback() ? "forced by configuration (" + RingPoolConfig.FALLBACK_PROPERTY + ")"
                        : "the adopted event loops are not io_uring loops";
            }
        } else {
            this.ownsGroup = true;
            if (config.forceFallback()) {
                uring = false;
                reason = "forced by configuration (" + RingPoolConfig.FALLBACK_PROPERTY + ")";
            } else {
                NettyUringSettings.apply(); // before anything here touches Netty's IoUring class
                uring = IoUring.isAvailable();
                if (!uring) {
                    reason = "io_uring unavailable: " + IoUring.unavailabilityCause();
                }
            }
            this.group = new MultiThreadIoEventLoopGroup(config.rings(), threads(config.name()),
                    uring ? IoUringIoHandler.newFactory(new IoUringIoHandlerConfig().setRingSize(config.ringSize()))
                            : NioIoHandler.newFactory());
        }
        this.transport = uring ? Transport.IO_URING : Transport.FALLBACK;
        if (uring) {
            NettyUringSettings.warnIfMultishotPoll(LOG);
        }
        this.fallbackReason = reason;
        this.fileExecutor = uring ? null : new ThreadPoolExecutor(config.fallbackFileThreads(),
                config.fallbackFileThreads(), 30, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(config.fallbackQueueCapacity()),
                Thread.ofPlatform().name(config.name() + "-file-", 0).daemon(true).factory());
        if (fileExecutor != null) {
            fileExecutor.allowCoreThreadTimeOut(true);
            LOG.log(System.Logger.Level.WARNING, "RingPool '" + config.name() + "' runs on the FALLBACK transport (NIO loops + "
                    + config.fallbackFileThreads() + " blocking file threads): " + reason);
        }
        List<Ring> rs = new ArrayList<>();
        int i = 0;
        for (EventExecutor e : group) {
            IoEventLoop loop = (IoEventLoop) e;
            RingEngine engine;
            if (uring) {
                UringEngine u = new UringEngine(loop, metrics);
                try {
                    u.register();
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while starting RingPool " + config.name(), ex);
                }
                engine = u;
            } else {
                engine = new BlockingEngine(loop, fileExecutor, metrics);
            }
            String name = adopted == null ? config.name() + "-" + i : config.name() + "-" + i + "(" + threadName(loop) + ")";
            rs.add(new Ring(this, i, name, loop, engine));
            i++;
        }
        this.rings = List.copyOf(rs);
    }

    /** A pool with default settings. */
    public static RingPool start() {
        return start(RingPoolConfig.defaults());
    }

    /** A pool with its own event loops. */
    public static RingPool start(RingPoolConfig config) {
        return new RingPool(config, null);
    }

    /** A pool over an existing group's loops (not owned: shutdown leaves them running). */
    public static RingPool adopt(IoEventLoopGroup group, RingPoolConfig config) {
        return new RingPool(config, Objects.requireNonNull(group, "group"));
    }

    // ------------------------------------------------------------------ placement

    /** Round-robin. */
    public Ring next() {
        return rings.get(Math.floorMod(cursor.getAndIncrement(), rings.size()));
    }

    /** The same ring for equal keys. */
    public Ring forKey(Object key) {
        int h = Objects.requireNonNull(key, "key").hashCode();
        h ^= h >>> 16;
        return rings.get(Math.floorMod(h, rings.size()));
    }

    /** The ring with the fewest operations in flight (ties: the lowest index). */
    public Ring leastLoaded() {
        Ring best = rings.get(0);
        int min = best.inFlight();
        for (int i = 1; i < rings.size() && min > 0; i++) {
            int n = rings.get(i).inFlight();
            if (n < min) {
                min = n;
                best = rings.get(i);
            }
        }
        return best;
    }

    /** All rings, in index order. */
    public List<Ring> rings() {
        return rings;
    }

    /** Opens {@code path} on the ring chosen by {@link #forKey} for its absolute path. */
    @kotlin.Deprecated(message = "Kotlin: use the suspending open", level = kotlin.DeprecationLevel.HIDDEN)
    public RingOp<RingFile> open(Path path, OpenOption... options) {
        return submitOpen(path, Set.of(options));
    }

    RingOp<RingFile> submitOpen(Path path, Set<? extends OpenOption> options) {
        Objects.requireNonNull(path, "path");
        return forKey(path.toAbsolutePath().normalize()).submitOpen(path, options);
    }

    // ------------------------------------------------------------------ sockets

    /**
     * Connects to {@code address} from the ring {@link #next()} picks; the connection stays on it.
     * A refused or unreachable address fails with a {@link RingIoException}. Cancelling it
     * ({@link RingOp#cancel()}) decides at once and aborts the kernel's connect; a connection made
     * anyway is closed, never handed out.
     */
    @kotlin.Deprecated(message = "Kotlin: use the suspending connect", level = kotlin.DeprecationLevel.HIDDEN)
    public RingOp<RingConnection> connect(java.net.InetSocketAddress address) {
        return submitConnect(address);
    }

    RingOp<RingConnection> submitConnect(java.net.InetSocketAddress address) {
        Objects.requireNonNull(address, "address");
        RingOp<RingConnection> op = new RingOp<RingConnection>("connect", address.toString())
                .releasingWith(RingConnection::submitClose);
        if (shutdown) {
            op.shutDown("RingPool '" + config.name() + "' is shut down");
            return op;
        }
        Ring ring = next();
        io.netty.bootstrap.Bootstrap b = new io.netty.bootstrap.Bootstrap()
                .group(ring.eventLoop())
                .channel(transport == Transport.IO_URING ? io.netty.channel.uring.IoUringSocketChannel.class
                        : io.netty.channel.socket.nio.NioSocketChannel.class)
                .option(io.netty.channel.ChannelOption.AUTO_READ, false)
                .handler(new io.netty.channel.ChannelInboundHandlerAdapter());
        op.startWithdrawable(); // until connected, cancel() decides at once
        io.netty.channel.ChannelFuture connecting = b.connect(address);
        op.armCancel(() -> {
            connecting.channel().close(); // aborts the connect in the kernel (or closes what it made)
            return false;
        });
        connecting.addListener((io.netty.channel.ChannelFutureListener) f -> {
            if (f.isSuccess() && shutdown) {
                f.channel().close(); // connected while the pool was shutting down: not handed out
                op.shutDown("RingPool '" + config.name() + "' is shut down");
            } else if (f.isSuccess() && !op.commit()) {
                f.channel().close(); // connected after cancel() withdrew it: its awaiter has left
            } else if (f.isSuccess()) {
                op.succeed(new RingConnection(ring, f.channel()));
            } else {
                int errno = NativeErrors.errnoOf(f.cause());
                RingIoException e = new RingIoException("connect", address.toString(), errno != 0 ? errno : Errno.EIO);
                e.initCause(f.cause());
                op.fail(e);
            }
        });
        return op;
    }

    /** The event loop group under the rings (for Netty bootstraps). */
    IoEventLoopGroup group() {
        return group;
    }

    /** The ring that runs on {@code loop}. */
    Ring ringOf(EventLoop loop) {
        for (Ring r : rings) {
            if (r.eventLoop() == loop) {
                return r;
            }
        }
        throw new IllegalStateException("event loop " + loop + " is not one of " + this);
    }

    // ------------------------------------------------------------------ state

    /** Which transport is active. */
    public Transport transport() {
        return transport;
    }

    /** Why the fallback is active; empty with io_uring. */
    public String fallbackReason() {
        return fallbackReason;
    }

    /** The pool's name. */
    public String name() {
        return config.name();
    }

    /** A snapshot of the counters. */
    public RingMetrics metrics() {
        int inFlight = 0;
        for (Ring r : rings) {
            inFlight += r.inFlight();
        }
        return new RingMetrics(transport, fallbackReason, rings.size(), inFlight, metrics.operations(),
                metrics.errors(), metrics.completions(), openFiles.size());
    }

    public boolean isShutdown() {
        return shutdown;
    }

    public boolean isTerminated() {
        return termination.isDone();
    }

    void remember(RingFile f) {
        openFiles.add(f);
        if (shutdown && f.markClosed()) {
            forget(f);
            f.ring().engine().closeNow(f); // raced with shutdown: do not leak it
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
            c.shutDownNow("RingPool '" + config.name() + "' is shut down"); // raced with shutdown
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

    // ------------------------------------------------------------------ shutdown

    /** {@link #shutdown(Duration)} with the configured grace period. */
    public CompletableFuture<Void> shutdown() {
        return shutdown(config.shutdownGracePeriod());
    }

    /**
     * Two-phase shutdown (see the class comment); returns a future completed at termination —
     * exceptionally, with a {@link RingPoolTerminationException}, if termination was not clean. Does
     * not block. Calling it again returns the same future.
     */
    public synchronized CompletableFuture<Void> shutdown(Duration gracePeriod) {
        Objects.requireNonNull(gracePeriod, "gracePeriod");
        if (shutdown) {
            return termination.copy();
        }
        shutdown = true;
        String reason = "RingPool '" + config.name() + "' is shutting down";
        for (Ring r : rings) {
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
        List<io.netty.channel.ChannelFuture> serverCloses = new ArrayList<>();
        for (RingServer s : List.copyOf(openServers)) {
            serverCloses.add(s.closeNow());
        }
        long deadline = System.nanoTime() + gracePeriod.toNanos();
        Thread.ofPlatform().name(config.name() + "-shutdown").daemon(true)
                .start(() -> finishShutdown(deadline, gracePeriod, serverCloses));
        return termination.copy();
    }

    /**
     * Phase 2, on the shutdown thread. Every step runs even if an earlier one failed; what failed is
     * collected, and termination completes exceptionally with all of it ({@link RingPoolTerminationException}).
     */
    private void finishShutdown(long deadline, Duration gracePeriod, List<io.netty.channel.ChannelFuture> serverCloses) {
        List<String> problems = new ArrayList<>();
        List<Throwable> errors = new ArrayList<>();
        try {
            for (io.netty.channel.ChannelFuture f : serverCloses) {
                // Listening sockets closed on their loops before the loops go.
                if (!f.awaitUninterruptibly(5_000)) {
                    problems.add("the listening socket " + f.channel() + " did not close within 5 s");
                } else if (!f.isSuccess()) {
                    problems.add("closing the listening socket " + f.channel() + " failed: " + f.cause());
                    errors.add(f.cause());
                }
            }
            while (inFlight() > 0 && System.nanoTime() - deadline < 0) {
                LockSupport.parkNanos(1_000_000); // phase 2: drain (rare, short: polling is fine here)
            }
            // Closing the files also ends the fallback's blocking calls still inside them.
            List<RingOp<Void>> closes = new ArrayList<>();
            for (RingFile f : List.copyOf(openFiles)) {
                forget(f);
                if (f.markClosed()) {
                    closes.add(f.ring().engine().closeNow(f));
                }
            }
            for (RingOp<Void> c : closes) {
                try {
                    c.join(java.time.Duration.ofSeconds(5)); // the CLOSE must reach the kernel before the ring goes
                } catch (Exception e) {
                    problems.add("close " + c.target() + " failed: " + e);
                    errors.add(e);
                }
            }
            for (Ring r : rings) {
                r.engine().release();
            }
            if (ownsGroup && !group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS)) {
                problems.add("the event loops did not stop within 10 s");
            }
            if (fileExecutor != null) {
                fileExecutor.shutdown();
                if (!fileExecutor.awaitTermination(10, TimeUnit.SECONDS)) {
                    problems.add("the fallback file threads did not stop within 10 s");
                }
            }
            int left = inFlight();
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
            termination.complete(null);
        } else {
            RingPoolTerminationException failed = new RingPoolTerminationException(config.name(), problems);
            errors.forEach(failed::addSuppressed);
            LOG.log(System.Logger.Level.WARNING, failed.getMessage());
            termination.completeExceptionally(failed);
        }
    }

    private int inFlight() {
        int n = 0;
        for (Ring r : rings) {
            n += r.inFlight();
        }
        return n;
    }

    /**
     * Blocks until the pool has terminated or {@code timeout} passes.
     *
     * @return {@code true} if it terminated cleanly; {@code false} if {@code timeout} passed first, or
     *         if termination failed — event loops or fallback file threads that did not stop in time,
     *         operations still in flight after the grace period, an error while shutting down (the
     *         future {@link #shutdown()} returned then completes exceptionally with a
     *         {@link RingPoolTerminationException} saying what)
     * @throws IllegalStateException if called on one of the pool's ring threads (it would wait for itself)
     */
    public boolean awaitTermination(Duration timeout) throws InterruptedException {
        Objects.requireNonNull(timeout, "timeout");
        for (Ring r : rings) {
            if (r.inRing()) {
                throw new IllegalStateException("RingPool '" + config.name() + "': awaitTermination on the ring thread "
                        + r.name() + " would wait for itself; use shutdown().whenComplete(...) instead");
            }
        }
        try {
            long nanos = timeout.isNegative() ? 0 : timeout.compareTo(Duration.ofDays(365)) > 0 ? Long.MAX_VALUE : timeout.toNanos();
            termination.get(nanos, TimeUnit.NANOSECONDS);
            return true;
        } catch (java.util.concurrent.TimeoutException e) {
            return false;
        } catch (java.util.concurrent.ExecutionException e) {
            return false; // terminated, but not cleanly: see the future's exception
        }
    }

    /**
     * {@link #shutdown()} and wait (grace period plus 15 s); logs a warning if the pool did not
     * terminate cleanly in that time. From a ring thread it only starts the shutdown.
     */
    @Override
    public void close() {
        shutdown();
        for (Ring r : rings) {
            if (r.inRing()) {
                return;
            }
        }
        try {
            if (!awaitTermination(config.shutdownGracePeriod().plusSeconds(15))) {
                LOG.log(System.Logger.Level.WARNING, "RingPool '" + config.name() + "' did not terminate cleanly in time"
                        + (termination.isCompletedExceptionally() ? "" : " (still terminating)"));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "RingPool[" + config.name() + ", " + transport + ", " + rings.size() + " rings]";
    }

    private static ThreadFactory threads(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new FastThreadLocalThread(r, prefix + "-" + n.getAndIncrement());
            t.setDaemon(true);
            return t;
        };
    }

    private static String threadName(EventLoop loop) {
        return loop.getClass().getSimpleName() + "@" + Integer.toHexString(System.identityHashCode(loop));
    }
}
