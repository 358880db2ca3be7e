package dev.corobridge.demo.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import dev.corobridge.demo.changelog.LogPosition;
import dev.corobridge.ring.RingPool;
import dev.corobridge.test.CorobridgeTest;

/**
 * The snapshot file through the ring pool (a pool of its own per test, which fails the test if a
 * file is left open): written whole and renamed into place; a damaged one is ignored with a WARN.
 */
@CorobridgeTest
@ExtendWith(OutputCaptureExtension.class)
class SnapshotFileTest {

    private static final Duration T = Duration.ofSeconds(30);

    private final RingPool pool;

    @TempDir
    Path dir;

    SnapshotFileTest(RingPool pool) {
        this.pool = pool;
    }

    @Test
    void aWrittenSnapshotReadsBackAndReplacesThePreviousOne() throws Exception {
        Path file = dir.resolve("sub/boards.snapshot");
        assertThat(SnapshotFile.read(pool, file, T)).isEmpty();
        BoardsSnapshot first = new BoardsSnapshot("t", List.of(new LogPosition(0, 1)), List.of());
        SnapshotFile.write(pool, file, first, T);
        assertThat(SnapshotFile.read(pool, file, T)).contains(first);
        BoardsSnapshot second = SnapshotCodecTest.sample();
        SnapshotFile.write(pool, file, second, T);
        assertThat(SnapshotFile.read(pool, file, T)).contains(second);
        try (var files = Files.list(file.getParent())) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactly("boards.snapshot");
        }
    }

    @Test
    void aDamagedSnapshotIsIgnoredWithAWarning(CapturedOutput output) throws Exception {
        Path file = dir.resolve("boards.snapshot");
        SnapshotFile.write(pool, file, SnapshotCodecTest.sample(), T);
        byte[] bytes = Files.readAllBytes(file);
        bytes[bytes.length / 2] ^= 1;
        Files.write(file, bytes);
        assertThat(SnapshotFile.read(pool, file, T)).isEmpty();
        assertThat(output.getAll()).contains("WARN").contains("is not used (the snapshot's checksum does not match");
        Files.write(file, new byte[0]);
        assertThat(SnapshotFile.read(pool, file, T)).isEmpty();
    }
}
