package dev.corobridge.ring;

import dev.corobridge.bridge.internal.BlockingGuard;
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
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A pool of io_uring background contexts ({@link Ring}s) for file I/O, each a Netty
 * {@link IoEventLoop} with its own thread, ring and eventfd.
 *
 * <h2>Placement</h2>
 * {@link #next()} round-robin; {@link #forKey(Object)} sticky (the same key always gets the same
 * ring, so every operation on one file or connection stays on one ring and is ordered there);
 * {@link #leastLoaded()} the ring with the fewest operations in flight. {@link #openAsync} places files
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
 * ({@link IoUring#unavailabilityCause()}), and {@link #getMetrics()} reports it
 * ({@link RingMetrics#transport()}, {@link RingMetrics#fallbackReason()}).
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
 * <h2>Structure</h2>
 * This class is the façade: it starts the loops and engines and answers for the pool. Behind it,
 * one package-private class per concern: {@code RingPlacement} (which ring takes what),
 * {@code RingConnector} (socket bootstraps for connect and bind) and {@code RingPoolShutdown} (the
 * two phases, the termination and the registry of open files, connections and servers).
 *
 * <p><b>Thread-safety.</b> Safe from any thread.
 */
public final class RingPool implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(RingPool.class.getName());

    private final RingPoolConfig config;
    private final Transport transport;
    private final String fallbackReason;
    private final IoEventLoopGroup group;
    private final RingMetricsRecorder metrics = new RingMetricsRecorder();
    private final RingPlacement placement;
    private final RingConnector connector;
    private final RingPoolShutdown shutdown;

    /** Why the fallback was forced: the system property when it is set, else the pool's configuration. */
    private static String forcedBy() {
        return Boolean.getBoolean(RingPoolConfig.FALLBACK_PROPERTY)
                ? "forced by the system property " + RingPoolConfig.FALLBACK_PROPERTY + "=true"
                : "forced by configuration (RingPoolConfig forceFallback)";
    }

    private RingPool(RingPoolConfig config, IoEventLoopGroup adopted) {
        this.config = Objects.requireNonNull(config, "config");
        String reason = "";
        boolean uring;
        if (adopted != null) {
            this.group = adopted;
            EventExecutor first = adopted.next();
            uring = !config.forceFallback() && first instanceof IoEventLoop l && l.isCompatible(IoUringIoHandle.class);
            if (!uring) {
                reason = config.forceFallback() ? forcedBy() : "the adopted event loops are not io_uring loops";
            }
        } else {
            if (config.forceFallback()) {
                uring = false;
                reason = forcedBy();
            } else {
                NettyUringSettings.apply(); // before anything here touches Netty's IoUring class
                uring = IoUring.isAvailable();
                if (!uring) {
                    reason = "io_uring unavailable: " + IoUring.unavailabilityCause();
                }
            }
            this.group = new MultiThreadIoEventLoopGroup(config.rings(), threads(config.name()),
                    uring ? IoUringIoHandler.newFactory(uringConfig(config.ringSize())) : NioIoHandler.newFactory());
        }
        this.transport = uring ? Transport.IO_URING : Transport.FALLBACK;
        if (uring) {
            NettyUringSettings.warnIfMultishotPoll(LOG);
        }
        this.fallbackReason = reason;
        ThreadPoolExecutor fileExecutor = uring ? null : new ThreadPoolExecutor(config.fallbackFileThreads(),
                config.fallbackFileThreads(), 30, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(config.fallbackQueueCapacity()),
                Thread.ofPlatform().name(config.name() + "-file-", 0).daemon(true).factory());
        // Closes never wait for a file thread (they may all be blocked in calls only a close ends).
        ThreadPoolExecutor closeExecutor = uring ? null : new ThreadPoolExecutor(0, Integer.MAX_VALUE, 10, TimeUnit.SECONDS,
                new SynchronousQueue<>(), Thread.ofPlatform().name(config.name() + "-close-", 0).daemon(true).factory());
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
                engine = new BlockingEngine(loop, fileExecutor, closeExecutor, metrics);
            }
            String name = adopted == null ? config.name() + "-" + i : config.name() + "-" + i + "(" + threadName(loop) + ")";
            if (adopted == null) {
                // A ring's thread is an event loop: join() there fails fast, as on the pump (queued
                // first, so before any task of the pool's users). Adopted loops are their owner's.
                loop.execute(() -> BlockingGuard.forbidBlocking(name));
            }
            rs.add(new Ring(this, i, name, loop, engine));
            i++;
        }
        this.placement = new RingPlacement(rs);
        this.connector = new RingConnector(this, placement, group, transport);
        this.shutdown = new RingPoolShutdown(config.name(), placement, adopted == null ? group : null, fileExecutor);
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
        return placement.next();
    }

    /** The same ring for equal keys. */
    public Ring forKey(Object key) {
        return placement.forKey(key);
    }

    /** The ring with the fewest operations in flight (ties: the lowest index). */
    public Ring leastLoaded() {
        return placement.leastLoaded();
    }

    /** All rings, in index order. */
    public List<Ring> getRings() {
        return placement.all();
    }

    /** Opens {@code path} (no options: read-only) on the ring chosen by {@link #forKey} for its absolute path. */
    public RingOp<RingFile> openAsync(Path path, OpenOption... options) {
        return openAsync(path, Set.of(options));
    }

    /** Opens {@code path} with {@code options} on the ring chosen by {@link #forKey} for its absolute path. */
    public RingOp<RingFile> openAsync(Path path, Set<? extends OpenOption> options) {
        Objects.requireNonNull(path, "path");
        return forKey(path.toAbsolutePath().normalize()).openAsync(path, options);
    }

    // ------------------------------------------------------------------ sockets

    /**
     * Binds {@code address} (port 0: any free port) and starts accepting; each accepted connection
     * is handed to {@code onAccept} on its ring's thread (keep it short: start the session on a
     * virtual thread). Returns at once and never blocks, so it may be called on the pump or a ring
     * thread; the operation completes with the {@link RingServer} once the address is bound, or
     * fails with a {@link RingIoException} if it cannot be (e.g. {@code EADDRINUSE}), or with a
     * {@link dev.corobridge.bridge.ContextShutdownException} if the pool is shutting down.
     * Cancelling it withdraws it at once: a server bound anyway is closed. From Kotlin:
     * {@code pool.bind(...)} or {@code pool.serve(...)}.
     */
    public RingOp<RingServer> bindAsync(java.net.InetSocketAddress address, java.util.function.Consumer<RingConnection> onAccept) {
        return RingServer.bind(this, address, onAccept);
    }

    /**
     * Connects to {@code address} from the ring {@link #next()} picks; the connection stays on it.
     * A refused or unreachable address fails with a {@link RingIoException}. Cancelling it
     * ({@link RingOp#cancel()}) decides at once and aborts the kernel's connect; a connection made
     * anyway is closed, never handed out.
     */
    public RingOp<RingConnection> connectAsync(java.net.InetSocketAddress address) {
        return connector.connect(address);
    }

    /** The socket plumbing (bootstraps, channel types) for {@link RingServer}. */
    RingConnector connector() {
        return connector;
    }

    /** The ring that runs on {@code loop}. */
    Ring ringOf(EventLoop loop) {
        Ring r = placement.ringOf(loop);
        if (r == null) {
            throw new IllegalStateException("event loop " + loop + " is not one of " + this);
        }
        return r;
    }

    // ------------------------------------------------------------------ state

    /** Which transport is active (public: {@code getMetrics().transport()}). */
    Transport transport() {
        return transport;
    }

    /** The pool's name. */
    public String getName() {
        return config.name();
    }

    /**
     * Counts an operation failed before it reached its ring's engine: asked for and ended at once,
     * so among {@code operations()}, {@code errors()} and {@code completions()} alike.
     */
    void recordFailure(String kind, int errno) {
        metrics.submitted(kind);
        metrics.failed(kind, errno);
        metrics.completed();
    }

    /** A snapshot of the counters. */
    public RingMetrics getMetrics() {
        return new RingMetrics(transport, fallbackReason, placement.size(), placement.inFlight(), metrics.operations(),
                metrics.errors(), metrics.completions(), shutdown.openFiles());
    }

    public boolean isShutdown() {
        return shutdown.isShutdown();
    }

    public boolean isTerminated() {
        return shutdown.isTerminated();
    }

    /** Why an operation is refused once the pool is shut down. */
    String shutDownReason() {
        return shutdown.refusal();
    }

    void remember(RingFile f) {
        shutdown.remember(f);
    }

    void forget(RingFile f) {
        shutdown.forget(f);
    }

    /** Tracks an open connection until its channel closes; shutdown fails its waiters and closes it. */
    void remember(RingConnection c) {
        shutdown.remember(c);
    }

    /** Tracks a server until it closes; shutdown closes it (an adopted group's loops would keep accepting). */
    void remember(RingServer s) {
        shutdown.remember(s);
    }

    /** Tracks a connect in flight until it settles; shutdown settles it as shut down and closes its channel. */
    void rememberConnect(RingOp<RingConnection> op, io.netty.channel.Channel channel) {
        shutdown.rememberConnect(op, channel);
    }

    void forgetConnect(RingOp<RingConnection> op) {
        shutdown.forgetConnect(op);
    }

    void forget(RingServer s) {
        shutdown.forget(s);
    }

    // ------------------------------------------------------------------ shutdown

    /** {@link #shutdown(Duration)} with the configured grace period. */
    public CompletableFuture<Void> shutdown() {
        return shutdown(config.shutdownGracePeriod());
    }

    /**
     * Netty's settings for a ring of {@code ringSize} submission entries. Its completion queue keeps
     * Netty's default size unless that is smaller than the ring: Netty refuses a completion queue
     * smaller than the submission queue (above 4096 entries the default is), so it then gets as
     * many entries as the ring. Set before the ring size, which Netty checks against it.
     */
    private static IoUringIoHandlerConfig uringConfig(int ringSize) {
        IoUringIoHandlerConfig c = new IoUringIoHandlerConfig();
        if (c.getCqSize() < ringSize) {
            c.setCqSize(ringSize);
        }
        return c.setRingSize(ringSize);
    }

    /**
     * Two-phase shutdown (see the class comment); returns a future completed at termination —
     * exceptionally, with a {@link RingPoolTerminationException}, if termination was not clean. Does
     * not block. Calling it again returns the same future. A grace period of any length is taken (one
     * longer than about 146 years is that long: a deadline that never comes).
     *
     * @throws IllegalArgumentException if {@code gracePeriod} is negative (nothing is shut down then)
     */
    public CompletableFuture<Void> shutdown(Duration gracePeriod) {
        Objects.requireNonNull(gracePeriod, "gracePeriod");
        if (gracePeriod.isNegative()) {
            throw new IllegalArgumentException("gracePeriod must not be negative, was " + gracePeriod);
        }
        return shutdown.start(gracePeriod);
    }

    /**
     * Blocks until the pool has terminated or {@code timeout} passes.
     *
     * @return {@code true} if it terminated cleanly; {@code false} if {@code timeout} passed first, or
     *         if termination failed — event loops or fallback file threads that did not stop in time,
     *         operations still in flight after the grace period, an error while shutting down (the
     *         future {@link #shutdown()} returned then completes exceptionally with a
     *         {@link RingPoolTerminationException} saying what)
     *         The futures {@link #shutdown()} handed out are copies of the termination: they complete
     *         with it, possibly an instant after this method returned (wait on them, do not poll).
     * @throws IllegalStateException if called on one of the pool's ring threads (it would wait for itself)
     */
    public boolean awaitTermination(Duration timeout) throws InterruptedException {
        Objects.requireNonNull(timeout, "timeout");
        Ring r = placement.current();
        if (r != null) {
            throw new IllegalStateException("RingPool '" + config.name() + "': awaitTermination on the ring thread "
                    + r.getName() + " would wait for itself; use shutdown().whenComplete(...) instead");
        }
        if (!isTerminated()) {
            BlockingGuard.checkMayBlock("RingPool.awaitTermination");
        }
        return shutdown.awaitTermination(timeout);
    }

    /**
     * {@link #shutdown()} and wait (grace period plus 15 s); logs a warning if the pool did not
     * terminate cleanly in that time. From a ring thread, or a thread that must never block (a
     * pump's), it only starts the shutdown.
     */
    @Override
    public void close() {
        shutdown();
        if (placement.current() != null || BlockingGuard.forbiddenContext() != null) {
            return; // a ring's or a pump's thread never waits: the shutdown goes on without it
        }
        try {
            Duration grace = config.shutdownGracePeriod();
            // Beyond a year awaitTermination waits without limit anyway; the sum could overflow.
            if (!awaitTermination(grace.compareTo(Duration.ofDays(365)) > 0 ? grace : grace.plusSeconds(15))) {
                LOG.log(System.Logger.Level.WARNING, "RingPool '" + config.name() + "' did not terminate cleanly in time"
                        + (shutdown.terminationFailed() ? "" : " (still terminating)"));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "RingPool[" + config.name() + ", " + transport + ", " + placement.size() + " rings]";
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
