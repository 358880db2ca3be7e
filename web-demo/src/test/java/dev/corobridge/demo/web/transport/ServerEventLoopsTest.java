package dev.corobridge.demo.web.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Properties;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The server's event loop count: one per core unless Reactor Netty's own setting is given. */
class ServerEventLoopsTest {

    @Test
    void oneLoopPerCoreWhenNothingIsGiven() {
        Properties p = new Properties();
        assertThat(ServerEventLoops.applyDefault(p, 2)).isEqualTo("2");
        assertThat(p.getProperty(ServerEventLoops.PROPERTY)).isEqualTo("2");
    }

    @Test
    void fewerThanReactorNettysFloorOfFourOnASmallMachine() {
        Properties p = new Properties();
        assertThat(ServerEventLoops.applyDefault(p, 1)).isEqualTo("1");
    }

    /** A given count wins; a blank one counts as not given. */
    @ParameterizedTest(name = "given \"{0}\", {1} cores: {2}")
    @CsvSource({"6, 2, 6", "' ', 3, 3", "'', 2, 2"})
    void aGivenCountWinsUnlessBlank(String given, int cores, String expected) {
        Properties p = new Properties();
        p.setProperty(ServerEventLoops.PROPERTY, given);
        assertThat(ServerEventLoops.applyDefault(p, cores)).isEqualTo(expected);
        assertThat(p.getProperty(ServerEventLoops.PROPERTY)).isEqualTo(expected);
    }

    @Test
    void refusesANonsenseCoreCount() {
        assertThatThrownBy(() -> ServerEventLoops.applyDefault(new Properties(), 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 1");
        assertThatThrownBy(() -> ServerEventLoops.applyDefault(null, 2)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void theSystemWideCallSetsTheRealProperty() {
        String before = System.getProperty(ServerEventLoops.PROPERTY);
        try {
            System.clearProperty(ServerEventLoops.PROPERTY);
            String applied = ServerEventLoops.applyDefault();
            assertThat(applied).isEqualTo(Integer.toString(Runtime.getRuntime().availableProcessors()));
            assertThat(System.getProperty(ServerEventLoops.PROPERTY)).isEqualTo(applied);
        } finally {
            if (before == null) {
                System.clearProperty(ServerEventLoops.PROPERTY);
            } else {
                System.setProperty(ServerEventLoops.PROPERTY, before);
            }
        }
    }
}
