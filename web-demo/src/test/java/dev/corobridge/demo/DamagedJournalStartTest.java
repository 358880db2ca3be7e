package dev.corobridge.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

import dev.corobridge.demo.journal.JournalCodec;
import dev.corobridge.demo.journal.JournalCorruptedException;

/**
 * The service on a journal damaged in the middle: the start fails with the damage named (Spring
 * Boot's failure report says where, and how to repair) and the file untouched; started again with
 * {@code demo.journal.repair=true}, it keeps every intact change, drops exactly the damaged one,
 * and its health says what the repair did.
 */
@ExtendWith(OutputCaptureExtension.class)
class DamagedJournalStartTest {

    private static final Duration T = Duration.ofSeconds(60);

    @TempDir
    Path data;

    @Test
    void aCorruptedJournalStopsTheStartUntilARepairIsAskedFor(CapturedOutput output) throws Exception {
        List<String> notes = new ArrayList<>();
        String board;
        try (ConfigurableApplicationContext first = start()) {
            WebTestClient http = client(first);
            board = (String) http.post().uri("/api/boards").contentType(MediaType.APPLICATION_JSON)
                    .bodyValue(Map.of("name", "kept")).exchange().expectStatus().isCreated()
                    .expectBody(Map.class).returnResult().getResponseBody().get("id");
            for (int i = 0; i < 20; i++) {
                notes.add((String) http.post().uri("/api/boards/{b}/notes", board).contentType(MediaType.APPLICATION_JSON)
                        .bodyValue(Map.of("text", "note " + i)).exchange().expectStatus().isCreated()
                        .expectBody(Map.class).returnResult().getResponseBody().get("id"));
            }
        }
        // Flip a byte in the payload of the 11th record (the note "note 9").
        Path journal = data.resolve("journal.log");
        byte[] bytes = Files.readAllBytes(journal);
        int at = JournalCodec.FILE_HEADER;
        for (int r = 0; r < 10; r++) {
            at += JournalCodec.HEADER + (bytes[at + 4] & 0xFF) + ((bytes[at + 5] & 0xFF) << 8);
        }
        int damagedRecord = at;
        bytes[at + JournalCodec.HEADER + 5] ^= 0x20;
        Files.write(journal, bytes);

        Throwable refused = catchThrowable(this::start);
        assertThat(refused).isNotNull().hasRootCauseInstanceOf(JournalCorruptedException.class);
        assertThat(Files.readAllBytes(journal)).as("the journal is untouched").isEqualTo(bytes);
        try (Stream<Path> files = Files.list(data)) {
            assertThat(files.map(p -> p.getFileName().toString())).as("nothing beside it but the claim's lock file")
                    .containsExactlyInAnyOrder("journal.log", "journal.log.lock");
        }
        assertThat(output.getOut() + output.getErr())
                .contains("APPLICATION FAILED TO START")
                .contains("The journal cannot be replayed")
                .contains("damaged at offset " + damagedRecord + " (record #10: payload checksum mismatch)")
                .contains("10 intact records follow the damage")
                .contains("demo.journal.repair=true").contains("DEMO_JOURNAL_REPAIR=true");

        // Health details are for operators only (off by default): this operator turned them on.
        try (ConfigurableApplicationContext repaired = start("--demo.journal.repair=true",
                "--management.endpoint.health.show-details=always")) {
            WebTestClient http = client(repaired);
            List<String> kept = new ArrayList<>(notes);
            kept.remove(9); // record #10 added "note 9"
            http.get().uri("/api/boards/{b}", board).exchange().expectStatus().isOk()
                    .expectBody().jsonPath("$.notes[*].id").isEqualTo(kept)
                    .jsonPath("$.revision").isEqualTo(19);
            http.get().uri("/actuator/health").exchange().expectStatus().isOk()
                    .expectBody()
                    .jsonPath("$.components.journal.status").isEqualTo("UP")
                    .jsonPath("$.components.journal.details.repairedAtStart.keptRecords").isEqualTo(20)
                    .jsonPath("$.components.journal.details.repairedAtStart.droppedRecords").isEqualTo(1)
                    .jsonPath("$.components.journal.details.repairedAtStart.dropped[0]").value(d -> assertThat((String) d)
                            .startsWith("offset " + damagedRecord + " (").contains("record #10"))
                    .jsonPath("$.components.journal.details.repairedAtStart.damagedCopy").value(p -> assertThat((String) p)
                            .contains("journal.log.damaged-"));
        }
        assertThat(output.getOut()).contains("Journal: repaired ").contains("Journal: repair dropped offset " + damagedRecord);
        // The next start finds a clean journal (the setting is off again).
        try (ConfigurableApplicationContext again = start()) {
            client(again).get().uri("/api/boards/{b}", board).exchange().expectStatus().isOk()
                    .expectBody().jsonPath("$.notes.length()").isEqualTo(19);
        }
    }

    private ConfigurableApplicationContext start(String... extra) {
        List<String> args = new ArrayList<>(List.of("--server.port=0", "--demo.data-dir=" + data,
                "--spring.lifecycle.timeout-per-shutdown-phase=10s"));
        args.addAll(List.of(extra));
        return new SpringApplicationBuilder(NotesBoardApplication.class).run(args.toArray(String[]::new));
    }

    private static WebTestClient client(ConfigurableApplicationContext ctx) {
        return WebTestClient.bindToServer()
                .baseUrl("http://localhost:" + ctx.getEnvironment().getProperty("local.server.port"))
                .responseTimeout(T).build();
    }
}
