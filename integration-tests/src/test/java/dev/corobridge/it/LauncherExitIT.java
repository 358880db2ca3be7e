package dev.corobridge.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The service started the way {@code ./mvnw -Pdemo verify} starts it: as the child of a launcher
 * process (Maven there, a shell here) that waits for it, with the application arguments of the
 * {@code demo} profile in {@code web-demo/pom.xml}. When the launcher dies (Maven sent a SIGTERM,
 * or killed), the service must not stay behind as an orphan that holds the port and the journal:
 * it stops as gracefully as on a SIGTERM of its own, and loses nothing. Without that setting (a
 * service started from a shell that then exits, as with {@code nohup}) it keeps running.
 */
class LauncherExitIT {

    private static final Pattern CLEAN_PUMP_STOP = Pattern.compile("MessagePump '.*' terminated.*abandoned: 0 coroutines");
    private static final Pattern PARENT_GONE = Pattern.compile("exited: stopping the service");

    @TempDir
    static Path data;

    @AfterAll
    static void noLeftovers() {
        DemoProcess.assertNoLeftovers();
    }

    @Test
    void theDemoProfilesServiceStopsGracefullyWhenItsLauncherIsKilled() throws Exception {
        List<String> profileArguments = demoProfileArguments();
        Path dir = data.resolve("with-launcher");
        Launched l = launchUnderShell("launcher-killed", dir, profileArguments);
        String board;
        String note;
        try {
            Scenarios s = new Scenarios(l.http());
            board = s.createBoard("/api", "orphan").path("id").asText();
            note = s.addNote("/api", board, "kept after the launcher died").path("id").asText();

            l.launcher().destroyForcibly(); // SIGKILL: Maven gone without a word to its child
            assertThat(l.launcher().waitFor(10, TimeUnit.SECONDS)).as("the launcher died").isTrue();

            Optional<ProcessHandle> stillRunning = awaitExit(l.service(), Duration.ofSeconds(30));
            assertThat(stillRunning).as("the service is still running 30 s after its launcher died; log:\n%s",
                    tail(l.log())).isEmpty();
        } finally {
            l.service().destroyForcibly();
        }
        String log = Files.readString(l.log());
        assertThat(PARENT_GONE.matcher(log).find()).as("the service says why it stops; log:\n%s", tail(l.log())).isTrue();
        assertThat(CLEAN_PUMP_STOP.matcher(log).find()).as("a graceful stop (the pump's report); log:\n%s",
                tail(l.log())).isTrue();
        assertThat(log).doesNotContain("Graceful shutdown aborted").doesNotContain(" ERROR ");

        try (DemoProcess again = DemoProcess.start("launcher-killed-restart", dir)) {
            Scenarios s = new Scenarios(again.http());
            assertThat(s.board("/api", board).path("notes").toString())
                    .as("the acknowledged note survived").contains(note);
        }
    }

    @Test
    void withoutTheSettingTheServiceOutlivesItsLauncher() throws Exception {
        Launched l = launchUnderShell("launcher-exits", data.resolve("without"), List.of());
        try {
            l.launcher().destroyForcibly();
            assertThat(l.launcher().waitFor(10, TimeUnit.SECONDS)).isTrue();
            DemoProcess.sleep(2_000);
            assertThat(l.service().isAlive()).as("the service runs on without its launcher").isTrue();
            new Scenarios(l.http()).ping();

            l.service().destroy(); // SIGTERM: still a graceful stop
            assertThat(awaitExit(l.service(), Duration.ofSeconds(30))).as("stopped by SIGTERM").isEmpty();
        } finally {
            l.service().destroyForcibly();
        }
        assertThat(CLEAN_PUMP_STOP.matcher(Files.readString(l.log())).find()).isTrue();
        assertThat(PARENT_GONE.matcher(Files.readString(l.log())).find()).isFalse();
    }

    /** The launcher (a shell waiting for its child, as Maven's exec does), the service, its HTTP client and log. */
    record Launched(Process launcher, ProcessHandle service, Http http, Path log) {
    }

    private static Launched launchUnderShell(String name, Path dataDir, List<String> applicationArguments)
            throws IOException {
        String[] properties = applicationArguments.stream()
                .map(a -> {
                    assertThat(a).as("an application argument of the demo profile").startsWith("--");
                    return a.substring(2);
                })
                .toArray(String[]::new);
        int port = DemoProcess.freePort();
        DemoProcess.Command c = DemoProcess.command(name, dataDir, port, properties);
        List<String> shell = new ArrayList<>(List.of("sh", "-c", "\"$@\" < /dev/null & wait", "launcher"));
        shell.addAll(c.args());
        ProcessBuilder pb = new ProcessBuilder(shell)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(c.log().toFile()));
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        Process launcher = pb.start();
        ProcessHandle service = null;
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (service == null && System.nanoTime() < deadline) {
            service = launcher.toHandle().children().findFirst().orElse(null);
            if (service == null) {
                DemoProcess.sleep(20);
            }
        }
        assertThat(service).as("the launcher started the service").isNotNull();
        Http http = new Http("http://127.0.0.1:" + port);
        try {
            Check.eventually(90_000, () -> Scenarios.ready(http), name + " ready");
        } catch (AssertionError e) {
            service.destroyForcibly();
            launcher.destroyForcibly();
            throw new AssertionError(e.getMessage() + "; log:\n" + tail(c.log()), e);
        }
        return new Launched(launcher, service, http, c.log());
    }

    /** Empty once the process has exited, else the process (still running after the timeout). */
    private static Optional<ProcessHandle> awaitExit(ProcessHandle p, Duration timeout) throws Exception {
        try {
            p.onExit().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return Optional.empty();
        } catch (TimeoutException e) {
            return Optional.of(p);
        }
    }

    /** The application arguments (after {@code -jar JAR}) of the demo profile's run in web-demo/pom.xml. */
    private static List<String> demoProfileArguments() throws Exception {
        Path root = Path.of(System.getProperty("it.repo.root", "..")).toAbsolutePath().normalize();
        var doc = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(root.resolve("web-demo/pom.xml").toFile());
        NodeList executions = doc.getElementsByTagName("execution");
        for (int i = 0; i < executions.getLength(); i++) {
            Element e = (Element) executions.item(i);
            NodeList ids = e.getElementsByTagName("id");
            if (ids.getLength() == 0 || !ids.item(0).getTextContent().trim().equals("run-web-demo")) {
                continue;
            }
            NodeList args = e.getElementsByTagName("argument");
            List<String> all = new ArrayList<>();
            for (int a = 0; a < args.getLength(); a++) {
                all.add(args.item(a).getTextContent().trim());
            }
            int jar = all.indexOf("-jar");
            assertThat(jar).as("the demo profile runs the jar: %s", all).isGreaterThanOrEqualTo(0);
            return List.copyOf(all.subList(jar + 2, all.size()));
        }
        throw new AssertionError("no run-web-demo execution in web-demo/pom.xml");
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(log unreadable: " + e + ")";
        }
    }
}
