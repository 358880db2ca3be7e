package dev.corobridge.demo;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where tests keep the data of the services and brokers they start: fresh directories under the
 * module's {@code target/test-data} ({@link #ROOT}, relative to the working directory, which is the
 * module's under Maven), so that {@code mvn clean} removes them and none is left in {@code /tmp}.
 * A test's Spring properties name the same place: {@code demo.data-dir=target/test-data/...}.
 */
public final class TestData {

    /** The directory every test's data goes under. */
    public static final Path ROOT = Path.of("target", "test-data");

    private TestData() {
    }

    /** A new, empty directory under {@link #ROOT} whose name begins with {@code prefix}. */
    public static Path directory(String prefix) {
        try {
            return Files.createTempDirectory(Files.createDirectories(ROOT), prefix).toAbsolutePath();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
