package dev.corobridge.demo.web.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ConnectException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import dev.corobridge.demo.NotesBoardApplication;
import dev.corobridge.demo.web.RawHttp;

/**
 * The service's shutdown under clients that do not wait: {@value #WRITERS} writers that open a fresh
 * connection for every request and send the next one as soon as they have an answer, 503 or not,
 * through the whole shutdown. Every connection a writer establishes gets an answer (201, or a 503
 * problem); once the service stops accepting, a connection attempt is refused outright. None is
 * reset and none closed without an answer: a client must be able to tell that its request was not
 * applied. The drain's timeout is short, so the writers keep it busy until it runs out.
 */
class ShutdownUnderLoadTest {

    static final int WRITERS = 24;
    private static final Pattern ID = Pattern.compile("\"id\":\"(b\\d+)\"");

    @TempDir
    Path data;

    @Test
    @Timeout(300)
    void freshConnectionsThroughTheWholeShutdownAreAnsweredOrRefusedNeverReset() throws Exception {
        ConfigurableApplicationContext ctx = new SpringApplicationBuilder(NotesBoardApplication.class).run(
                "--server.port=0", "--server.address=127.0.0.1", "--demo.data-dir=" + data,
                "--spring.lifecycle.timeout-per-shutdown-phase=60s", "--demo.shutdown.drain-timeout=2s",
                "--demo.shutdown.quiet-period=100ms", "--demo.shutdown.retry-after=1s");
        int port = Integer.parseInt(ctx.getEnvironment().getProperty("local.server.port"));
        String notes;
        try (RawHttp c = new RawHttp(port)) {
            RawHttp.Response created = c.exchange(RawHttp.json("POST", "/api/boards", "{\"name\":\"load\"}"));
            Matcher id = ID.matcher(created.body());
            assertThat(id.find()).as("board id in %s", created.body()).isTrue();
            notes = "/boards/" + id.group(1) + "/notes";
        }
        AtomicBoolean closing = new AtomicBoolean();
        AtomicInteger answered = new AtomicInteger();
        Map<Integer, AtomicInteger> statuses = new ConcurrentHashMap<>();
        AtomicInteger refused = new AtomicInteger();
        ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
        List<Thread> writers = new ArrayList<>();
        for (int w = 0; w < WRITERS; w++) {
            String path = (w % 2 == 0 ? "/api" : "/api/kt") + notes;
            int writer = w;
            writers.add(Thread.ofPlatform().name("writer-" + w).start(() -> {
                for (int i = 0; ; i++) {
                    RawHttp c;
                    try {
                        c = new RawHttp(port);
                    } catch (ConnectException e) {
                        if (closing.get()) {
                            refused.incrementAndGet();
                            return; // refused outright: the service is gone, nothing was sent
                        }
                        violations.add("writer " + writer + ": connect refused before the shutdown: " + e);
                        return;
                    } catch (IOException e) {
                        violations.add("writer " + writer + ": connect failed: " + e);
                        return;
                    }
                    try (c) {
                        RawHttp.Response r = c.exchange(RawHttp.json("POST", path, "{\"text\":\"w" + writer + " #" + i + "\"}")
                                .replace("\r\n\r\n", "\r\nConnection: close\r\n\r\n"));
                        statuses.computeIfAbsent(r.status(), s -> new AtomicInteger()).incrementAndGet();
                        answered.incrementAndGet();
                        boolean problem = String.valueOf(r.header("content-type")).startsWith("application/problem+json");
                        if (r.status() != 201 && !(r.status() == 503 && problem)) {
                            violations.add("writer " + writer + ": answer " + r.status() + " " + r.body());
                        }
                    } catch (IOException e) {
                        violations.add("writer " + writer + ": no answer on an established connection"
                                + (closing.get() ? " during the shutdown" : "") + ": " + e);
                    }
                }
            }));
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (answered.get() < 20 * WRITERS && System.nanoTime() < deadline && violations.isEmpty()) {
            Thread.onSpinWait();
        }
        assertThat(answered.get()).as("answers before the shutdown (violations: %s)", violations)
                .isGreaterThanOrEqualTo(20 * WRITERS);
        closing.set(true);
        ctx.close();
        for (Thread t : writers) {
            t.join(TimeUnit.SECONDS.toMillis(60));
            assertThat(t.isAlive()).as("%s still running", t.getName()).isFalse();
        }
        System.out.printf("[shutdown under load] answers %s, refused connects %d, violations %d%n", statuses, refused.get(),
                violations.size());
        assertThat(violations).as("connections reset or closed without an answer").isEmpty();
        assertThat(statuses.get(503)).as("requests refused with 503 while the service shut down").isNotNull();
        assertThat(refused.get()).as("writers whose connection was refused once the service stopped accepting")
                .isEqualTo(WRITERS);
    }
}
