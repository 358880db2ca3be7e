package dev.corobridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.abort;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * The demo in containers, as part of {@code ./mvnw verify}: runs {@code integration-tests/docker/run}
 * (images on a locally built base, docker-compose up, the scenarios from the client container by
 * service name and from the host by published port, the transport each service reports, graceful
 * stop, teardown with a leftover check) and requires its "N passed, 0 failed".
 *
 * <p>Where Docker is not installed the test is skipped with a message, so {@code ./mvnw verify}
 * stays usable on a developer machine; with {@code COROBRIDGE_REQUIRE_DOCKER=true} (set by
 * {@code .ci/run}) or {@code -Dit.docker.require=true} a missing Docker fails it instead.
 */
class ContainersIT {

    @Test
    void theDemoInContainersPassesEveryScenario() throws Exception {
        Path root = Path.of(System.getProperty("it.repo.root", "..")).toAbsolutePath().normalize();
        boolean require = Boolean.parseBoolean(System.getenv("COROBRIDGE_REQUIRE_DOCKER"))
                || Boolean.getBoolean("it.docker.require");
        if (!require && !(onPath("docker") && onPath("docker-compose"))) {
            abort("SKIPPED: the container scenarios need docker and docker-compose (v1) "
                    + "(apt-get install docker.io docker-compose; CI installs them)");
        }
        Path logs = Path.of(System.getProperty("it.logs", "target/it-logs"));
        Files.createDirectories(logs);
        Path log = logs.resolve("docker-run.log");
        List<String> command = new ArrayList<>(List.of("bash", root.resolve("integration-tests/docker/run").toString()));
        if (require) {
            command.add("--require");
        }
        Process p = new ProcessBuilder(command).directory(root.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        boolean done = p.waitFor(20, TimeUnit.MINUTES);
        if (!done) {
            p.descendants().forEach(ProcessHandle::destroy);
            p.destroy();
            p.waitFor(60, TimeUnit.SECONDS);
        }
        String out = Files.readString(log);
        String tail = out.length() > 6000 ? out.substring(out.length() - 6000) : out;
        assertThat(done).as("docker/run did not finish in 20 minutes; its log:%n%s", tail).isTrue();
        assertThat(p.exitValue()).as("docker/run failed; its log (%s):%n%s", log, tail).isZero();
        if (!require && out.contains("SKIPPED")) {
            abort(out.lines().filter(l -> l.contains("SKIPPED")).findFirst().orElse("SKIPPED"));
        }
        assertThat(out).as("docker/run's summary; log %s", log).containsPattern("[1-9][0-9]* passed, 0 failed");
    }

    private static boolean onPath(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (Files.isExecutable(Path.of(dir, tool))) {
                return true;
            }
        }
        return false;
    }
}
