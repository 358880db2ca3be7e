package dev.corobridge.apidump;

import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

/**
 * The API check of one library module, run by that module's surefire: the parent pom lists this
 * artifact in surefire's {@code dependenciesToScan}, so every module with a test-scoped dependency
 * on {@code corobridge-api-dump} runs this test, and only those. The parent's surefire
 * configuration passes the module's coordinates as system properties ({@code corobridge.api.*});
 * {@code -Dcorobridge.api.update=true} on the Maven command line rewrites the dump instead of
 * comparing (surefire hands command-line properties to the test JVM).
 *
 * <p>A failure prints the unified diff between the checked-in dump and the compiled classes, and
 * the command that regenerates the file.
 */
public class ApiDumpTest {

    @Test
    void publicApiMatchesCheckedInDump() {
        Path basedir = Path.of(required("corobridge.api.basedir")).toAbsolutePath().normalize();
        Path dumpFile = Path.of(required("corobridge.api.file")).toAbsolutePath().normalize();
        Path root = repositoryRoot(basedir);
        String moduleDir = root.relativize(basedir).toString().replace('\\', '/');
        String command = "./mvnw" + (moduleDir.isEmpty() ? "" : " -pl " + moduleDir + " -am") + " verify -D"
                + ApiDumpCheck.UPDATE_PROPERTY + "=true";
        ApiDumpCheck.Module module = new ApiDumpCheck.Module(required("corobridge.api.artifactId"),
                Path.of(required("corobridge.api.classes")), dumpFile,
                root.relativize(dumpFile).toString().replace('\\', '/'), command);

        ApiDumpCheck.Result result = ApiDumpCheck.run(module, Boolean.getBoolean(ApiDumpCheck.UPDATE_PROPERTY));

        if (!result.passed()) {
            fail(result.message());
        }
        System.out.println("[api-dump] " + result.message());
    }

    private static String required(String property) {
        String value = System.getProperty(property);
        if (value == null || value.isBlank() || value.startsWith("${")) {
            fail("system property " + property + " is not set: run this test through Maven, whose parent pom"
                    + " sets it for every module that depends on corobridge-api-dump");
        }
        return value;
    }

    /** The directory of the Maven wrapper above the module (the reactor's root), else the module's parent. */
    private static Path repositoryRoot(Path basedir) {
        for (Path dir = basedir; dir != null; dir = dir.getParent()) {
            if (Files.exists(dir.resolve("mvnw"))) {
                return dir;
            }
        }
        return basedir.getParent() != null ? basedir.getParent() : basedir;
    }
}
