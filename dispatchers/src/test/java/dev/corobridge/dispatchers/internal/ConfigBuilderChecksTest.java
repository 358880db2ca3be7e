package dev.corobridge.dispatchers.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.corobridge.pump.PumpConfig;
import dev.corobridge.ring.RingPoolConfig;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Both configuration builders refuse a bad setting the same way, through {@link Settings}: at once,
 * in the setter, with an {@link IllegalArgumentException} naming the setting, the range and the
 * value ({@link NullPointerException} naming the setting for a null), and accept both ends of the
 * range.
 */
class ConfigBuilderChecksTest {

    @Test
    void intSettingsAcceptTheirRangeAndNameTheRangeAndValueWhenOutside() {
        PumpConfig.Builder pump = PumpConfig.builder("p");
        pump.batchSize(1).batchSize(65_536).maxNestingDepth(1).maxNestingDepth(64);
        refused("batchSize must be in 1..65536, was 0", () -> pump.batchSize(0));
        refused("batchSize must be in 1..65536, was 65537", () -> pump.batchSize(65_537));
        refused("maxNestingDepth must be in 1..64, was 65", () -> pump.maxNestingDepth(65));

        RingPoolConfig.Builder ring = RingPoolConfig.builder();
        ring.rings(1).rings(256).fallbackFileThreads(1024).fallbackQueueCapacity(16 << 20);
        refused("rings must be in 1..256, was 0", () -> ring.rings(0));
        refused("fallbackFileThreads must be in 1..1024, was 1025", () -> ring.fallbackFileThreads(1025));
        refused("fallbackQueueCapacity must be in 1..16777216, was -1", () -> ring.fallbackQueueCapacity(-1));
        RingPoolConfig built = ring.rings(3).build();
        assertEquals(3, built.rings(), "a refused call left the accepted value alone");
    }

    @Test
    void powerOfTwoSettingsRefuseOtherNumbersInRange() {
        RingPoolConfig.Builder ring = RingPoolConfig.builder();
        ring.ringSize(16).ringSize(32_768);
        refused("ringSize must be a power of two in 16..32768, was 24", () -> ring.ringSize(24));
        refused("ringSize must be a power of two in 16..32768, was 8", () -> ring.ringSize(8));
        refused("ringSize must be a power of two in 16..32768, was 65536", () -> ring.ringSize(65_536));
    }

    @Test
    void durationSettingsRefuseNegativeTooLongAndNull() {
        PumpConfig.Builder pump = PumpConfig.builder("p");
        pump.spinBudget(Duration.ZERO).spinBudget(Duration.ofMillis(10)).shutdownGracePeriod(Duration.ofDays(1));
        refused("spinBudget must be in 0..PT0.01S, was PT0.010000001S", () -> pump.spinBudget(Duration.ofNanos(10_000_001)));
        refused("shutdownGracePeriod must be in 0..PT24H, was PT-1S", () -> pump.shutdownGracePeriod(Duration.ofSeconds(-1)));
        assertEquals("spinBudget", assertThrows(NullPointerException.class, () -> pump.spinBudget(null)).getMessage());

        RingPoolConfig.Builder ring = RingPoolConfig.builder();
        ring.shutdownGracePeriod(Duration.ZERO).shutdownGracePeriod(Duration.ofDays(3650));
        refused("shutdownGracePeriod must not be negative, was PT-0.000000001S",
                () -> ring.shutdownGracePeriod(Duration.ofNanos(-1)));
        assertEquals("shutdownGracePeriod",
                assertThrows(NullPointerException.class, () -> ring.shutdownGracePeriod(null)).getMessage());
    }

    /** Blank as {@code String.isBlank} says: a no-break space is not white space there, so it is a name. */
    @Test
    void namesMustNotBeBlankAsJavaDefinesBlank() {
        refused("pump name must not be blank", () -> PumpConfig.builder(" \t"));
        refused("pump name must not be blank", () -> PumpConfig.builder(""));
        refused("name must not be blank", () -> RingPoolConfig.builder().name("\u2003"));
        assertEquals("name", assertThrows(NullPointerException.class, () -> PumpConfig.builder(null)).getMessage());
        assertEquals("name", assertThrows(NullPointerException.class, () -> RingPoolConfig.builder().name(null)).getMessage());
        assertEquals("\u00a0", PumpConfig.builder("\u00a0").build().name());
        assertEquals("\u00a0", RingPoolConfig.builder().name("\u00a0").build().name());
    }

    private static void refused(String message, Executable call) {
        assertEquals(message, assertThrows(IllegalArgumentException.class, call).getMessage());
    }
}
