package dev.corobridge.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.file.Path;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * A {@code server.port} that is no port (below 0, above 65535) stops the start with Spring Boot's
 * failure report naming the setting and what it takes, not with Netty's "port out of range" at the
 * end of a stack trace.
 */
@ExtendWith(OutputCaptureExtension.class)
class ServerPortStartTest {

    @TempDir
    Path tmp;

    @ParameterizedTest
    @ValueSource(strings = {"70000", "-1"})
    void aPortOutOfRangeIsReportedNamingTheSetting(String port, CapturedOutput output) {
        assertThat(catchThrowable(() -> new SpringApplicationBuilder(NotesBoardApplication.class)
                .run("--server.port=" + port, "--demo.data-dir=" + tmp, "--spring.lifecycle.timeout-per-shutdown-phase=10s")
                .close())).isNotNull();
        assertThat(output.getOut() + output.getErr())
                .contains("APPLICATION FAILED TO START")
                .contains("The port " + port + " is not one the service can listen on")
                .contains("Set server.port (environment: SERVER_PORT) to a port from 1 to 65535, or 0");
    }
}
