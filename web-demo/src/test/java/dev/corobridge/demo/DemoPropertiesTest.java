package dev.corobridge.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/** The bounds of {@code demo.long-poll-timeout}, bound as the service binds it. */
class DemoPropertiesTest {

    private static DemoProperties bind(String longPollTimeout) {
        return new Binder(new MapConfigurationPropertySource(Map.of("demo.long-poll-timeout", longPollTimeout)))
                .bindOrCreate("demo", DemoProperties.class);
    }

    @Test
    void theLongPollTimeoutIsAtMostTenMinutesToTheNanosecond() {
        assertThat(bind("10m").longPollTimeout()).isEqualTo(Duration.ofMinutes(10));
        for (String tooLong : new String[] {"601s", "659s", "600001ms", "11m"}) {
            assertThatThrownBy(() -> bind(tooLong)).as(tooLong).isInstanceOf(BindException.class)
                    .rootCause().hasMessageContaining("demo.long-poll-timeout must be within (0, 10m]");
        }
    }
}
