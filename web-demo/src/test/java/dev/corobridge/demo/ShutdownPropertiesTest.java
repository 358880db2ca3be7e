package dev.corobridge.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.junit.jupiter.api.Test;

/** Validation of {@code demo.shutdown.*} and the cap of the drain timeout. */
class ShutdownPropertiesTest {

    private static ShutdownProperties of(String quiet, String drain, String retryAfter) {
        return new ShutdownProperties(Duration.parse(quiet), Duration.parse(drain), Duration.parse(retryAfter), false);
    }

    @Test
    void theDefaultsAreValid() {
        ShutdownProperties p = of("PT0.5S", "PT10S", "PT5S");
        assertThat(p.effectiveDrainTimeout(Duration.ofSeconds(20))).isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void theDrainTimeoutIsCappedAt90PercentOfThePhaseTimeout() {
        assertThat(of("PT0.5S", "PT10S", "PT5S").effectiveDrainTimeout(Duration.ofSeconds(10))).isEqualTo(Duration.ofSeconds(9));
        assertThat(of("PT0.5S", "PT0S", "PT5S").effectiveDrainTimeout(Duration.ofSeconds(10))).isEqualTo(Duration.ZERO);
    }

    @Test
    void rejectsNonsenseNamingTheProperty() {
        assertThatThrownBy(() -> of("PT0S", "PT10S", "PT5S")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("demo.shutdown.quiet-period");
        assertThatThrownBy(() -> of("PT0.5S", "PT-1S", "PT5S")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("demo.shutdown.drain-timeout");
        assertThatThrownBy(() -> of("PT0.5S", "PT10S", "PT0.5S")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("demo.shutdown.retry-after");
        assertThatThrownBy(() -> of("PT0.5S", "PT10S", "PT1.5S")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("whole seconds");
        assertThatThrownBy(() -> of("PT2S", "PT10S", "PT2S")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("longer than demo.shutdown.quiet-period");
    }
}
