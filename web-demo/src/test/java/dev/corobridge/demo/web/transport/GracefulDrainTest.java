package dev.corobridge.demo.web.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.ConnectException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import dev.corobridge.demo.NotesBoardApplication;
import dev.corobridge.demo.web.RawHttp;

/**
 * The service's shutdown as a client sees it on the wire: once shutdown begins, an idle keep-alive
 * connection stays open and its next request is answered (503 problem, {@code Retry-After},
 * {@code Connection: close}, then the server closes it), new connections are still accepted and
 * answered, every response says {@code Connection: close}, and the listening socket closes only
 * after the connections are quiet: a request whose bytes are still arriving holds the shutdown
 * until it is complete and answered. Refusals are not logged as errors.
 */
@ExtendWith(OutputCaptureExtension.class)
class GracefulDrainTest {

    private static final Pattern ID = Pattern.compile("\"id\":\"(b\\d+)\"");

    @TempDir
    Path data;

    @Test
    @Timeout(300)
    void everyRequestDuringShutdownIsAnsweredAndTheListenerClosesOnlyOnceConnectionsAreQuiet(CapturedOutput output)
            throws Exception {
        ConfigurableApplicationContext ctx = new SpringApplicationBuilder(NotesBoardApplication.class).run(
                "--server.port=0", "--server.address=127.0.0.1", "--demo.data-dir=" + data,
                // Long limits: only the held request may end the drain, however slow the machine.
                "--spring.lifecycle.timeout-per-shutdown-phase=10m", "--demo.shutdown.drain-timeout=5m",
                "--demo.shutdown.quiet-period=100ms", "--demo.shutdown.retry-after=7s");
        int port = Integer.parseInt(ctx.getEnvironment().getProperty("local.server.port"));
        ServiceState state = ctx.getBean(ServiceState.class);
        Thread closer;
        try (RawHttp keepAlive = new RawHttp(port); RawHttp held = new RawHttp(port)) {
            keepAlive.send(RawHttp.json("POST", "/api/boards", "{\"name\":\"drain\"}"));
            RawHttp.Response created = keepAlive.read();
            assertThat(created.status()).isEqualTo(201);
            assertThat(created.header("connection")).as("keep-alive before shutdown").isNull();
            Matcher id = ID.matcher(created.body());
            assertThat(id.find()).as("board id in %s", created.body()).isTrue();
            String notes = "/api/boards/" + id.group(1) + "/notes";

            // A request whose bytes are still arriving when shutdown begins.
            held.send("POST " + notes + " HTTP/1.1\r\nHost: localhost\r\n");

            closer = Thread.ofPlatform().name("closer").start(ctx::close);
            state.whenShuttingDown().toCompletableFuture().get(60, TimeUnit.SECONDS);

            // The idle keep-alive connection is still open; its next request is answered.
            keepAlive.send(RawHttp.json("POST", notes, "{\"text\":\"late\"}"));
            assertCleanRefusal(keepAlive.read());
            assertThat(keepAlive.closedByServer()).as("closed after the refusal").isTrue();

            // New connections are still accepted, and answered.
            try (RawHttp fresh = new RawHttp(port)) {
                fresh.send(RawHttp.json("POST", "/api/kt" + notes.substring(4), "{\"text\":\"late too\"}"));
                assertCleanRefusal(fresh.read());
                assertThat(fresh.closedByServer()).isTrue();
            }
            try (RawHttp page = new RawHttp(port)) {
                page.send(RawHttp.get("/index.html"));
                RawHttp.Response r = page.read();
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.header("connection")).as("every response during shutdown").isEqualToIgnoringCase("close");
                assertThat(page.closedByServer()).isTrue();
            }

            assertThat(closer.isAlive()).as("the context still closing: the held request holds the drain").isTrue();
            held.send("Content-Type: application/json\r\nContent-Length: 15\r\n\r\n{\"text\":\"held\"}");
            assertCleanRefusal(held.read());
            assertThat(held.closedByServer()).isTrue();
        }
        closer.join();
        assertThat(ctx.isActive()).isFalse();
        assertThatThrownBy(() -> new RawHttp(port).close()).as("the listening socket is closed")
                .isInstanceOf(ConnectException.class);
        assertThat(output.getAll()).contains("Shutdown: connections drained");
        assertThat(output.getAll().lines().filter(l -> l.contains(" ERROR ") && l.contains("ProblemJsonHandler")))
                .as("refusals logged as errors").isEmpty();
    }

    private static void assertCleanRefusal(RawHttp.Response r) {
        assertThat(r.status()).as("status of %s", r).isEqualTo(503);
        assertThat(r.header("content-type")).startsWith("application/problem+json");
        assertThat(r.body()).contains("\"status\":503");
        assertThat(r.header("retry-after")).as("Retry-After of %s", r).isEqualTo("7");
        assertThat(r.header("connection")).as("Connection of %s", r).isEqualToIgnoringCase("close");
    }
}
