package dev.corobridge.demo.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;


import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.corobridge.demo.SmallDisk;

/**
 * A journal that failed (here: its disk is full) logs its failure once, with the stack, when it
 * breaks; the writes refused after it are answered 503 and cost one WARN line at most per minute,
 * without a stack. Each used to log an ERROR line with the whole stack, about 45 lines a request,
 * which on a full disk that also holds the logs fills it faster (1,260 refusals wrote 6 MB in 12 s).
 *
 * <p>The data directory is on a 512 KiB tmpfs mounted for the test; where mounting is not allowed
 * (no root, a restricted container) the test is skipped.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@ExtendWith(OutputCaptureExtension.class)
class FailedJournalRefusalsTest {

    private static SmallDisk disk;

    @DynamicPropertySource
    static void smallDisk(DynamicPropertyRegistry r) throws Exception {
        disk = SmallDisk.mount("small-disk", "512k");
        r.add("demo.data-dir", () -> disk.path().resolve("data").toString());
    }

    @LocalServerPort
    int port;

    @AfterAll
    static void unmount() {
        disk.close();
    }

    @Test
    void writesRefusedByAFailedJournalAreNotEachLoggedWithAStack(CapturedOutput output) throws Exception {
        assumeTrue(disk.mounted(), SmallDisk.NEEDS);
        RawHttp.Response made = post("/api/boards", "{\"name\":\"full disk\"}");
        assertThat(made.status()).isEqualTo(201);
        String b = made.header("location").substring(made.header("location").lastIndexOf('/') + 1);
        String note = "{\"text\":\"" + "x".repeat(1900) + "\"}";
        int status = 201;
        for (int i = 0; i < 2_000 && status == 201; i++) {
            status = post("/api/boards/" + b + "/notes", note).status();
        }
        assertThat(status).as("the disk filled up").isEqualTo(503);
        int from = output.getAll().length();
        for (String face : new String[] {"/api", "/api/kt"}) {
            for (int i = 0; i < 10; i++) {
                RawHttp.Response r = post(face + "/boards/" + b + "/notes", note);
                assertThat(r.status()).isEqualTo(503);
                assertThat(r.body()).contains("ENOSPC");
            }
        }
        // Reads are served from memory meanwhile, on both faces (as API.md promises).
        for (String face : new String[] {"/api", "/api/kt"}) {
            try (RawHttp c = new RawHttp(port)) {
                RawHttp.Response r = c.exchange(("GET " + face + "/boards/" + b + " HTTP/1.1\r\nHost: localhost\r\n\r\n")
                        .getBytes(StandardCharsets.UTF_8));
                assertThat(r.status()).as(r.body()).isEqualTo(200);
                assertThat(r.body()).contains("full disk");
            }
        }
        String logged = output.getAll().substring(from);
        assertThat(logged).doesNotContain(" ERROR ").doesNotContain("\tat ");
        assertThat(logged.lines().filter(l -> l.contains(" WARN ")).count()).as(logged).isLessThanOrEqualTo(1);
    }

    private RawHttp.Response post(String path, String json) throws Exception {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        try (RawHttp c = new RawHttp(port)) {
            return c.exchange(("POST " + path + " HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                    + "Content-Length: " + body.length + "\r\n\r\n" + json).getBytes(StandardCharsets.UTF_8));
        }
    }
}
