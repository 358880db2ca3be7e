package dev.corobridge.ring;

import dev.corobridge.bridge.ExecutionContext;
import io.netty.channel.IoEventLoop;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Set;

/**
 * One background context of a {@link RingPool}: a Netty {@link IoEventLoop} — one thread, one
 * io_uring, one eventfd doorbell — that is both a Java {@link java.util.concurrent.Executor}
 * (rejecting work once shut down) and, through {@link #getDispatcher()}, a Kotlin dispatcher with
 * {@code Delay} on the loop's own timers.
 *
 * <p>A coroutine running on the ring that awaits one of the ring's operations resumes inline when
 * the completion arrives (zero hops); awaiters elsewhere resume on their own dispatcher.
 *
 * <p><b>Never block it.</b> Like the pump's, a ring's thread runs every operation of that ring: a
 * blocking wait there stalls them all, and waiting for one of its own operations would wait forever.
 * So {@code join()} of unfinished work on the thread of a pool's own ring throws
 * {@link IllegalStateException} at once, naming the ring and the fix ({@code thenOn}, a virtual
 * thread, or Kotlin's {@code await()}). The loops of an adopted group are their owner's threads and
 * are not marked.
 *
 * <p><b>Thread-safety.</b> Safe from any thread.
 */
public final class Ring implements ExecutionContext {

    private final RingPool pool;
    private final int index;
    private final String name;
    private final IoEventLoop loop;
    private final RingEngine engine;
    private final RingDispatcher dispatcher;

    Ring(RingPool pool, int index, String name, IoEventLoop loop, RingEngine engine) {
        this.pool = pool;
        this.index = index;
        this.name = name;
        this.loop = loop;
        this.engine = engine;
        this.dispatcher = new RingDispatcher(this);
    }

    /** Opens {@code path} (no options: read-only) on this ring; the file stays bound to it. */
    public RingOp<RingFile> openAsync(Path path, OpenOption... options) {
        return openAsync(path, Set.of(options));
    }

    /** Opens {@code path} with {@code options} on this ring. */
    public RingOp<RingFile> openAsync(Path path, Set<? extends OpenOption> options) {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(options, "options");
        String p = path.toString();
        if (p.isEmpty() || p.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("not a usable path: '" + p.replace("\0", "\\0") + "'");
        }
        int flags = OpenFlags.of(options);
        RingOp<RingFile> op = new RingOp<RingFile>("open", p).releasingWith(RingFile::closeAsync);
        if (pool.isShutdown()) {
            op.shutDown(pool.shutDownReason());
            return op;
        }
        engine.open(op, this, path, options, flags);
        return op;
    }

    @Override
    public String getName() {
        return name;
    }

    /** Position in the pool, 0-based. */
    public int getIndex() {
        return index;
    }

    @Override
    public RingDispatcher getDispatcher() {
        return dispatcher;
    }

    /**
     * Runs {@code task} on the ring's thread.
     *
     * @throws java.util.concurrent.RejectedExecutionException once the ring has shut down
     */
    @Override
    public void execute(Runnable task) {
        loop.execute(Objects.requireNonNull(task, "task"));
    }

    /** Whether the calling thread is this ring's thread. */
    public boolean isCurrentThread() {
        return loop.inEventLoop();
    }

    /** File operations in flight on this ring (socket I/O is not counted: see {@link RingMetrics}). */
    public int getInFlight() {
        return engine.inFlight();
    }

    /**
     * The Netty event loop, for the pool's own socket plumbing (registering channels on it). Not
     * public API: a Netty type, and work submitted to it bypasses the ring's accounting.
     */
    IoEventLoop eventLoop() {
        return loop;
    }

    /** The pool this ring belongs to. */
    public RingPool getPool() {
        return pool;
    }

    RingEngine engine() {
        return engine;
    }

    @Override
    public String toString() {
        return "Ring[" + name + ", " + pool.transport() + ", in flight " + getInFlight() + "]";
    }
}
