package dev.corobridge.pump;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import dev.corobridge.dispatchers.internal.Settings;
import kotlinx.coroutines.Dispatchers;
import kotlinx.coroutines.ExecutorsKt;

/**
 * How a {@link MessagePump} runs. Immutable; build one with {@link #builder(String)}.
 *
 * <table>
 *   <caption>Settings and defaults</caption>
 *   <tr><th>setting</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>batchSize</td><td>64</td><td>most tasks (and most timers, and most completions) run per
 *       loop iteration before the other sources get their turn</td></tr>
 *   <tr><td>spinBudget</td><td>20 µs</td><td>longest the idle pump re-checks its queues before it parks;
 *       adaptive: it spins only while recent spins found work (probing every 16th idle otherwise),
 *       so rare traffic or a busy machine turns spinning off, and not while crowded (a park
 *       gathered 32 or more items: many producers share a wake-up then);
 *       {@code ZERO} never spins</td></tr>
 *   <tr><td>stallThreshold</td><td>1 s</td><td>a task running longer is reported once; {@code ZERO}
 *       turns the watchdog off (one daemon thread samples all pumps; it ends when none is left)</td></tr>
 *   <tr><td>shutdownGracePeriod</td><td>10 s</td><td>phase 2 of {@link MessagePump#shutdown()}</td></tr>
 *   <tr><td>maxNestingDepth</td><td>8</td><td>how deep {@link MessagePump#pumpUntil} may nest</td></tr>
 *   <tr><td>latencySampleEvery</td><td>16</td><td>one post in N is timed for the queue-latency metric
 *       (a power of two; 1 times every post; 0 none)</td></tr>
 *   <tr><td>daemon</td><td>true</td><td>whether an owned pump thread is a daemon (as kotlinx's
 *       {@code newSingleThreadContext})</td></tr>
 *   <tr><td>fallbackExecutor</td><td>{@code Dispatchers.IO}</td><td>where a coroutine resumption that
 *       can no longer reach the terminated pump runs, after its job was cancelled</td></tr>
 *   <tr><td>stallListener</td><td>log a warning</td><td>receives every {@link StallReport}</td></tr>
 *   <tr><td>idleHook</td><td>none</td><td>runs on the pump each time it runs out of work</td></tr>
 *   <tr><td>uncaughtExceptionHandler</td><td>log</td><td>receives what a posted task, timer or completion
 *       throws, on the pump thread, and what a coroutine of the pump's scope fails with (unless it
 *       has a {@code CoroutineExceptionHandler} of its own), on the thread it failed on; if the handler throws in turn, both exceptions are logged at
 *       {@code ERROR} (logger {@code dev.corobridge.pump.MessagePump}, neither exception changed) and
 *       the loop goes on</td></tr>
 * </table>
 */
public final class PumpConfig {

    private static final System.Logger LOG = System.getLogger(MessagePump.class.getName());

    private final String name;
    private final int batchSize;
    private final Duration spinBudget;
    private final Duration stallThreshold;
    private final Duration shutdownGracePeriod;
    private final int maxNestingDepth;
    private final int latencySampleEvery;
    private final boolean daemon;
    private final Executor fallbackExecutor;
    private final Consumer<StallReport> stallListener;
    private final Runnable idleHook;
    private final Thread.UncaughtExceptionHandler uncaughtExceptionHandler;

    private PumpConfig(Builder b) {
        this.name = b.name;
        this.batchSize = b.batchSize;
        this.spinBudget = b.spinBudget;
        this.stallThreshold = b.stallThreshold;
        this.shutdownGracePeriod = b.shutdownGracePeriod;
        this.maxNestingDepth = b.maxNestingDepth;
        this.latencySampleEvery = b.latencySampleEvery;
        this.daemon = b.daemon;
        this.fallbackExecutor = b.fallbackExecutor != null ? b.fallbackExecutor
                : ExecutorsKt.asExecutor(Dispatchers.getIO());
        this.stallListener = b.stallListener != null ? b.stallListener
                : report -> LOG.log(System.Logger.Level.WARNING, report.toString());
        this.idleHook = b.idleHook;
        this.uncaughtExceptionHandler = b.uncaughtExceptionHandler != null ? b.uncaughtExceptionHandler
                : (t, e) -> LOG.log(System.Logger.Level.ERROR,
                        "MessagePump '" + name + "': a posted task threw on thread '" + t.getName() + "'", e);
    }

    /** The defaults, with this pump name. */
    public static PumpConfig defaults(String name) {
        return builder(name).build();
    }

    /** A builder starting from the defaults. */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /** A builder starting from this configuration. */
    public Builder toBuilder() {
        Builder b = new Builder(name);
        b.batchSize = batchSize;
        b.spinBudget = spinBudget;
        b.stallThreshold = stallThreshold;
        b.shutdownGracePeriod = shutdownGracePeriod;
        b.maxNestingDepth = maxNestingDepth;
        b.latencySampleEvery = latencySampleEvery;
        b.daemon = daemon;
        b.fallbackExecutor = fallbackExecutor;
        b.stallListener = stallListener;
        b.idleHook = idleHook;
        b.uncaughtExceptionHandler = uncaughtExceptionHandler;
        return b;
    }

    public String name() { return name; }
    public int batchSize() { return batchSize; }
    public Duration spinBudget() { return spinBudget; }
    public Duration stallThreshold() { return stallThreshold; }
    public Duration shutdownGracePeriod() { return shutdownGracePeriod; }
    public int maxNestingDepth() { return maxNestingDepth; }
    public int latencySampleEvery() { return latencySampleEvery; }
    public boolean daemon() { return daemon; }
    public Executor fallbackExecutor() { return fallbackExecutor; }
    public Consumer<StallReport> stallListener() { return stallListener; }
    /** May be {@code null}. */
    public Runnable idleHook() { return idleHook; }
    public Thread.UncaughtExceptionHandler uncaughtExceptionHandler() { return uncaughtExceptionHandler; }

    @Override
    public String toString() {
        return "PumpConfig[name=" + name + ", batchSize=" + batchSize + ", spinBudget=" + spinBudget
                + ", stallThreshold=" + stallThreshold + ", shutdownGracePeriod=" + shutdownGracePeriod
                + ", maxNestingDepth=" + maxNestingDepth + ", latencySampleEvery=" + latencySampleEvery
                + ", daemon=" + daemon + "]";
    }

    /** Builds a {@link PumpConfig}; every setter validates its argument at once. */
    public static final class Builder {
        private final String name;
        private int batchSize = 64;
        private Duration spinBudget = Duration.ofNanos(20_000);
        private Duration stallThreshold = Duration.ofSeconds(1);
        private Duration shutdownGracePeriod = Duration.ofSeconds(10);
        private int maxNestingDepth = 8;
        private int latencySampleEvery = 16;
        private boolean daemon = true;
        private Executor fallbackExecutor;
        private Consumer<StallReport> stallListener;
        private Runnable idleHook;
        private Thread.UncaughtExceptionHandler uncaughtExceptionHandler;

        private Builder(String name) {
            this.name = Settings.notBlank("name", "pump name", name);
        }

        /** 1..65536. */
        public Builder batchSize(int n) {
            this.batchSize = Settings.intIn("batchSize", n, 1, 65_536);
            return this;
        }

        /** 0..10 ms. */
        public Builder spinBudget(Duration d) {
            this.spinBudget = Settings.durationIn("spinBudget", d, Duration.ofMillis(10));
            return this;
        }

        /** {@code ZERO} disables the watchdog; otherwise at least 10 ms. */
        public Builder stallThreshold(Duration d) {
            Settings.durationIn("stallThreshold", d, Duration.ofDays(1));
            if (!d.isZero() && d.toMillis() < 10) {
                throw new IllegalArgumentException("stallThreshold must be 0 (off) or at least 10 ms, was " + d);
            }
            this.stallThreshold = d;
            return this;
        }

        /** Not negative. */
        public Builder shutdownGracePeriod(Duration d) {
            this.shutdownGracePeriod = Settings.durationIn("shutdownGracePeriod", d, Duration.ofDays(1));
            return this;
        }

        /** 1..64. */
        public Builder maxNestingDepth(int n) {
            this.maxNestingDepth = Settings.intIn("maxNestingDepth", n, 1, 64);
            return this;
        }

        /** 0 (off) or a power of two up to 65536. */
        public Builder latencySampleEvery(int n) {
            if (n < 0 || n > 65_536 || (n & (n - 1)) != 0) {
                throw new IllegalArgumentException("latencySampleEvery must be 0 or a power of two up to 65536, was " + n);
            }
            this.latencySampleEvery = n;
            return this;
        }

        public Builder daemon(boolean daemon) {
            this.daemon = daemon;
            return this;
        }

        public Builder fallbackExecutor(Executor executor) {
            this.fallbackExecutor = Objects.requireNonNull(executor, "fallbackExecutor");
            return this;
        }

        public Builder stallListener(Consumer<StallReport> listener) {
            this.stallListener = Objects.requireNonNull(listener, "stallListener");
            return this;
        }

        /** {@code null} removes the hook. */
        public Builder idleHook(Runnable hook) {
            this.idleHook = hook;
            return this;
        }

        public Builder uncaughtExceptionHandler(Thread.UncaughtExceptionHandler handler) {
            this.uncaughtExceptionHandler = Objects.requireNonNull(handler, "uncaughtExceptionHandler");
            return this;
        }

        public PumpConfig build() {
            return new PumpConfig(this);
        }
    }
}
