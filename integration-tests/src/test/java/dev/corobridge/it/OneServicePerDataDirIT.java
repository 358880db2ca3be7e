package dev.corobridge.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A second service started on a data directory that a running service uses (a second start by
 * mistake, two instances behind one balancer with one volume) must refuse to start, saying why and
 * which process holds the journal: two journals appending to one file at their own offsets would
 * overwrite each other's acknowledged changes. The first service serves on, loses nothing, and once
 * it has stopped the directory can be used again. A killed holder leaves no stale claim: the lock is
 * the kernel's.
 */
class OneServicePerDataDirIT {

    @TempDir
    static Path data;

    @AfterAll
    static void noLeftovers() {
        DemoProcess.assertNoLeftovers();
    }

    @Test
    void aSecondServiceOnTheSameDataDirectoryRefusesToStart() {
        Path dir = data.resolve("shared");
        List<String> names = new ArrayList<>();
        String board;
        try (DemoProcess first = DemoProcess.start("data-dir-first", dir)) {
            Scenarios s = new Scenarios(first.http());
            board = s.createBoard("/api", "first").path("id").asText();
            for (int i = 0; i < 3; i++) {
                names.add(s.addNote("/api", board, "note " + i).path("id").asText());
            }

            DemoProcess second = DemoProcess.launch("data-dir-second", dir);
            Optional<Integer> exit;
            try {
                exit = second.waitFor(Duration.ofSeconds(90));
            } finally {
                second.close();
            }
            assertThat(exit).as("the second service stopped by itself; log:\n%s", second.tail(40)).isPresent();
            assertThat(exit.get()).as("with a failure status").isNotZero();
            String log = second.logText();
            assertThat(log).contains("APPLICATION FAILED TO START")
                    .contains("is in use by another process (pid " + first.pid() + ")")
                    .contains("demo.data-dir");

            // The first one serves on, with everything it acknowledged.
            assertThat(s.board("/api", board).path("notes").toString()).contains(names);
            names.add(s.addNote("/api", board, "after the refusal").path("id").asText());
        }

        // Stopped: the directory is free again, and holds every acknowledged note.
        try (DemoProcess again = DemoProcess.start("data-dir-again", dir)) {
            assertThat(new Scenarios(again.http()).board("/api", board).path("notes").toString()).contains(names);
            again.kill(); // SIGKILL: the kernel drops the claim with the process
        }
        try (DemoProcess afterKill = DemoProcess.start("data-dir-after-kill", dir)) {
            assertThat(new Scenarios(afterKill.http()).board("/api", board).path("notes").toString()).contains(names);
        }
    }
}
