package dev.corobridge.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.http.client.ReactorResourceFactory;
import org.springframework.test.util.ReflectionTestUtils;

/**
 * The server's event loops stop after a quiet period of 100 ms at shutdown, not Reactor Netty's 2 s:
 * by then the drain has answered every request and nothing is served any more, so the default only
 * delayed the exit (an idle service took about 3.2 s from SIGTERM to exit, 1.2 s with this).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "demo.data-dir=target/test-data/event-loop-quiet-period-test-${random.uuid}")
class EventLoopQuietPeriodTest {

    @Autowired
    ReactorResourceFactory resources;

    @Test
    void theEventLoopsStopAfterAShortQuietPeriod() {
        // No getter: the field Spring's own tests read too.
        assertThat(ReflectionTestUtils.getField(resources, "shutdownQuietPeriod")).isEqualTo(Duration.ofMillis(100));
    }
}
