package dev.corobridge.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * A {@code demo.data-dir} the service cannot use (a file in its place, a directory below a file)
 * stops the start with Spring Boot's failure report naming the setting, the path and what is wrong
 * with it, not with a bare {@code FileAlreadyExistsException} deep in a stack trace; the file in
 * the way is left as it was.
 */
@ExtendWith(OutputCaptureExtension.class)
class UnusableDataDirStartTest {

    @TempDir
    Path tmp;

    @Test
    void aFileWhereTheDirectoryShouldBe(CapturedOutput output) throws Exception {
        Path file = Files.writeString(tmp.resolve("notes"), "not a directory");
        assertThat(catchThrowable(() -> start(file))).isNotNull();
        assertThat(output.getOut() + output.getErr())
                .contains("APPLICATION FAILED TO START")
                .contains("demo.data-dir")
                .contains(file + " is not a directory");
        assertThat(Files.readString(file)).isEqualTo("not a directory");
    }

    @Test
    void aDirectoryBelowAFile(CapturedOutput output) throws Exception {
        Path file = Files.writeString(tmp.resolve("plain"), "x");
        Path dir = file.resolve("data");
        assertThat(catchThrowable(() -> start(dir))).isNotNull();
        assertThat(output.getOut() + output.getErr())
                .contains("APPLICATION FAILED TO START")
                .contains("demo.data-dir")
                .contains(dir + " cannot be created");
    }

    private static void start(Path dataDir) {
        new SpringApplicationBuilder(NotesBoardApplication.class)
                .run("--server.port=0", "--demo.data-dir=" + dataDir, "--spring.lifecycle.timeout-per-shutdown-phase=10s")
                .close();
    }
}
