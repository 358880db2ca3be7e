package dev.corobridge.ring;

import java.time.Duration;
import dev.corobridge.dispatchers.internal.Settings;

/**
 * How a {@link RingPool} runs. Immutable; {@link #builder()} starts from the defaults.
 *
 * <table>
 *   <caption>Settings and defaults</caption>
 *   <tr><th>setting</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>name</td><td>{@code ring}</td><td>thread and context names: {@code ring-0}, {@code ring-1} ...</td></tr>
 *   <tr><td>rings</td><td>available processors</td><td>event loops, each one thread + one io_uring</td></tr>
 *   <tr><td>ringSize</td><td>4096</td><td>submission queue entries per ring</td></tr>
 *   <tr><td>forceFallback</td><td>{@code -Dcorobridge.ring.fallback=true}</td><td>use the fallback
 *       even where io_uring works (CI runs the whole suite both ways)</td></tr>
 *   <tr><td>fallbackFileThreads</td><td>max(4, 2 × rings)</td><td>threads of the bounded blocking
 *       executor for file operations in the fallback</td></tr>
 *   <tr><td>fallbackQueueCapacity</td><td>65536</td><td>queued file operations before new ones are
 *       refused in the fallback: they fail with a {@link RingIoException} {@code EAGAIN}</td></tr>
 *   <tr><td>shutdownGracePeriod</td><td>10 s</td><td>phase 2 of {@link RingPool#shutdown()}</td></tr>
 * </table>
 */
public final class RingPoolConfig {

    /** System property that forces the fallback transport ({@code true}). */
    public static final String FALLBACK_PROPERTY = "corobridge.ring.fallback";

    private final String name;
    private final int rings;
    private final int ringSize;
    private final boolean forceFallback;
    private final int fallbackFileThreads;
    private final int fallbackQueueCapacity;
    private final Duration shutdownGracePeriod;

    private RingPoolConfig(Builder b) {
        this.name = b.name;
        this.rings = b.rings;
        this.ringSize = b.ringSize;
        this.forceFallback = b.forceFallback;
        this.fallbackFileThreads = b.fallbackFileThreads > 0 ? b.fallbackFileThreads : Math.max(4, 2 * b.rings);
        this.fallbackQueueCapacity = b.fallbackQueueCapacity;
        this.shutdownGracePeriod = b.shutdownGracePeriod;
    }

    public static RingPoolConfig defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    public String name() { return name; }
    public int rings() { return rings; }
    public int ringSize() { return ringSize; }
    public boolean forceFallback() { return forceFallback; }
    public int fallbackFileThreads() { return fallbackFileThreads; }
    public int fallbackQueueCapacity() { return fallbackQueueCapacity; }
    public Duration shutdownGracePeriod() { return shutdownGracePeriod; }

    @Override
    public String toString() {
        return "RingPoolConfig[name=" + name + ", rings=" + rings + ", ringSize=" + ringSize + ", forceFallback="
                + forceFallback + ", fallbackFileThreads=" + fallbackFileThreads + "]";
    }

    /** Builds a {@link RingPoolConfig}; setters validate at once. */
    public static final class Builder {
        private String name = "ring";
        private int rings = Runtime.getRuntime().availableProcessors();
        private int ringSize = 4096;
        private boolean forceFallback = Boolean.getBoolean(FALLBACK_PROPERTY);
        private int fallbackFileThreads;
        private int fallbackQueueCapacity = 65_536;
        private Duration shutdownGracePeriod = Duration.ofSeconds(10);

        private Builder() {
        }

        public Builder name(String name) {
            this.name = Settings.notBlank("name", "name", name);
            return this;
        }

        /** 1..256. */
        public Builder rings(int n) {
            this.rings = Settings.intIn("rings", n, 1, 256);
            return this;
        }

        /** A power of two in 16..32768. */
        public Builder ringSize(int n) {
            this.ringSize = Settings.powerOfTwoIn("ringSize", n, 16, 32_768);
            return this;
        }

        public Builder forceFallback(boolean on) {
            this.forceFallback = on;
            return this;
        }

        /** 1..1024. */
        public Builder fallbackFileThreads(int n) {
            this.fallbackFileThreads = Settings.intIn("fallbackFileThreads", n, 1, 1024);
            return this;
        }

        /** 1..16M. */
        public Builder fallbackQueueCapacity(int n) {
            this.fallbackQueueCapacity = Settings.intIn("fallbackQueueCapacity", n, 1, 16 << 20);
            return this;
        }

        public Builder shutdownGracePeriod(Duration d) {
            this.shutdownGracePeriod = Settings.notNegative("shutdownGracePeriod", d);
            return this;
        }

        public RingPoolConfig build() {
            return new RingPoolConfig(this);
        }
    }
}
