package dev.corobridge.demo;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Stops the service when the process that started it exits ({@code demo.shutdown.with-parent}).
 *
 * <p>A launcher that waits for the service as its child (Maven's {@code exec} in the {@code -Pdemo}
 * run, a supervisor script) does not pass its own end on: when it gets a SIGTERM or is killed, the
 * service would run on as an orphan, holding the port and the journal. With this watch the service
 * then stops as it does on its own SIGTERM: {@code System.exit(143)} runs Spring's shutdown hook,
 * which drains the connections, closes the journal and stops the pump and the ring pool.
 *
 * <p>The parent is the one the JVM had when {@link #launcher()} was first called
 * ({@link NotesBoardApplication#main} calls it before Spring starts), so a launcher that dies while
 * the service starts is noticed too: by then the process has been given another parent, and the
 * remembered one is no longer alive. {@link ProcessHandle#isAlive()} compares start times, so a
 * reused pid does not count as the launcher.
 *
 * <p>Algorithm: one daemon thread polls the parent's liveness every {@code period} (reading
 * {@code /proc}, a few microseconds); the JDK's own {@code onExit()} for a process that is not a
 * child polls too, but backs off to five seconds.
 *
 * <p>Thread-safety: {@link #start} and {@link #close} may be called from any thread; {@code close}
 * does not wait for the watching thread (a stop under way blocks in {@code System.exit} until the
 * shutdown hooks, which include {@code close}, are done).
 */
public final class ParentProcessWatch implements AutoCloseable {

    private static final Log LOG = LogFactory.getLog(ParentProcessWatch.class);

    /** The exit status of a stop caused by the parent's end: that of a SIGTERM, which it stands for. */
    static final int EXIT_STATUS = 143;

    /** {@code null}: nothing to watch ({@link #none}). */
    private final ProcessHandle parent;
    private final Duration period;
    private final Runnable stop;
    private volatile boolean closed;
    private volatile boolean stopping;
    /** Liveness checks made so far (written by the watching thread only). */
    private volatile long checks;
    private Thread thread;

    /**
     * A watch of {@code parent} that runs {@code stop} once, on the watching thread, when the parent
     * is no longer alive.
     */
    ParentProcessWatch(ProcessHandle parent, Duration period, Runnable stop) {
        this.parent = parent;
        this.period = Objects.requireNonNull(period, "period");
        this.stop = Objects.requireNonNull(stop, "stop");
        if (period.isNegative() || period.isZero()) {
            throw new IllegalArgumentException("period must be positive, was " + period);
        }
    }

    /** The process that started this JVM, as it was on the first call (empty: none, e.g. pid 1 itself). */
    public static Optional<ProcessHandle> launcher() {
        return Optional.ofNullable(Launcher.PARENT);
    }

    /** Holds the parent seen when this class is first asked for it. */
    private static final class Launcher {
        static final ProcessHandle PARENT = ProcessHandle.current().parent().orElse(null);
    }

    /**
     * The service's watch of its launcher: stops the service with {@code System.exit(143)} once the
     * launcher has exited (nothing to watch when the JVM had no parent).
     */
    static ParentProcessWatch ofLauncher(Duration period) {
        return new ParentProcessWatch(launcher().orElse(null), period, () -> System.exit(EXIT_STATUS));
    }

    /** A watch that watches nothing (the setting is off). */
    static ParentProcessWatch none() {
        return new ParentProcessWatch(null, Duration.ofSeconds(1), () -> { });
    }

    /** Starts watching (once); returns this. */
    synchronized ParentProcessWatch start() {
        if (parent == null) {
            LOG.warn("demo.shutdown.with-parent is set, but the service has no parent process to watch");
            return this;
        }
        if (thread == null && !closed) {
            thread = Thread.ofPlatform().daemon().name("parent-watch").start(this::watch);
            LOG.info("The service stops when its parent process (pid " + parent.pid() + ", "
                    + parent.info().command().orElse("command unknown") + ") exits");
        }
        return this;
    }

    private void watch() {
        while (!closed) {
            boolean alive = parent.isAlive();
            checks++;
            if (!alive) {
                stopping = true;
                LOG.warn("The parent process (pid " + parent.pid() + ") that started the service has exited: "
                        + "stopping the service gracefully, as on SIGTERM");
                stop.run();
                return;
            }
            try {
                Thread.sleep(period);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** Whether the parent's end was seen and the stop was run. */
    boolean stopping() {
        return stopping;
    }

    /** How many times the parent's liveness was checked. */
    long checks() {
        return checks;
    }

    /**
     * Waits until the watching thread has ended (after a stop, or after {@link #close}); {@code true}
     * if it has, or never started.
     */
    boolean awaitEnd(Duration timeout) throws InterruptedException {
        Thread t;
        synchronized (this) {
            t = thread;
        }
        return t == null || t.join(timeout);
    }

    /** Stops watching; a stop already under way goes on. */
    @Override
    public synchronized void close() {
        closed = true;
        if (thread != null && !stopping) {
            thread.interrupt();
        }
    }
}
