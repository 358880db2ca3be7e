package dev.corobridge.demo.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.OptionalLong;

import org.junit.jupiter.api.Test;
import org.springframework.boot.diagnostics.FailureAnalysis;

import dev.corobridge.demo.FileInUseFailureAnalyzer;
import dev.corobridge.demo.snapshot.SnapshotInUseException;

/**
 * The start's report for a data directory file another process holds says which file, which
 * process, and what to do, in the words of the journal or of the replica's snapshot.
 */
class FileInUseReportTest {

    private final FileInUseFailureAnalyzer analyzer = new FileInUseFailureAnalyzer();

    @Test
    void aJournalInUseNamesTheJournalTheProcessAndClusterMode() {
        FailureAnalysis a = analyzer.analyze(new IllegalStateException("start failed",
                new JournalInUseException(Path.of("/data/journal.log"), OptionalLong.of(4242))));
        assertThat(a.getDescription()).startsWith("The journal cannot be opened: ").contains("/data/journal.log", "4242");
        assertThat(a.getAction()).contains("Give each service its own data directory", "stop the process 4242 first",
                "cluster mode (demo.store=kafka)", "Nothing in the journal was read or changed.");
    }

    @Test
    void aSnapshotInUseNamesTheReplicasDirectory() {
        FailureAnalysis a = analyzer.analyze(new SnapshotInUseException(Path.of("/data/boards.snapshot"), OptionalLong.empty()));
        assertThat(a.getDescription()).startsWith("The replica's data directory cannot be used: ").contains("/data/boards.snapshot");
        assertThat(a.getAction()).contains("Give each replica its own data directory", "stop the other process first",
                "Nothing in the directory was read or changed.");
    }
}
