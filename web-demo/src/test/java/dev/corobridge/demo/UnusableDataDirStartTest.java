package dev.corobridge.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import dev.corobridge.demo.journal.JournalCodec;

/**
 * A {@code demo.data-dir} the service cannot use (a file in its place, a directory below a file, a
 * directory where the journal should be, a journal or lock file the process may not open for writing, a
 * journal written by a newer version) stops the start with
 * Spring Boot's failure report naming the path and what is wrong with it, not with a bare exception
 * deep in a stack trace; what is in the way is left as it was.
 */
@ExtendWith(OutputCaptureExtension.class)
class UnusableDataDirStartTest {

    @TempDir
    Path tmp;

    @Test
    void aFileWhereTheDirectoryShouldBe(CapturedOutput output) throws Exception {
        Path file = Files.writeString(tmp.resolve("notes"), "not a directory");
        assertThat(catchThrowable(() -> start(file))).isNotNull();
        assertThat(output.getOut() + output.getErr())
                .contains("APPLICATION FAILED TO START")
                .contains("demo.data-dir")
                .contains(file + " is not a directory");
        assertThat(Files.readString(file)).isEqualTo("not a directory");
    }

    @Test
    void aDirectoryBelowAFile(CapturedOutput output) throws Exception {
        Path file = Files.writeString(tmp.resolve("plain"), "x");
        Path dir = file.resolve("data");
        assertThat(catchThrowable(() -> start(dir))).isNotNull();
        assertThat(output.getOut() + output.getErr())
                .contains("APPLICATION FAILED TO START")
                .contains("demo.data-dir")
                .contains(dir + " cannot be created");
    }

    /**
     * A directory that says it is writable but takes no file: procfs's root answers root's access
     * check (root passes any permission bits) with yes, and refuses every file created in it. The
     * start used to fail later with a stack trace from the journal's lock file. Without root the
     * access check already says no. Either way the start's report names the directory.
     */
    @Test
    void aDirectoryThatTakesNoFile(CapturedOutput output) {
        Path dir = Path.of("/proc");
        assumeTrue(Files.isDirectory(dir), "no procfs here");
        assertThat(catchThrowable(() -> start(dir))).isNotNull();
        assertThat(output.getOut() + output.getErr())
                .contains("APPLICATION FAILED TO START")
                .contains("demo.data-dir")
                .containsAnyOf(dir + " cannot be written", dir + " is not writable");
    }

    @Test
    void aDirectoryWhereTheJournalShouldBe(CapturedOutput output) throws Exception {
        Path journal = Files.createDirectories(tmp.resolve("data/journal.log"));
        assertThat(catchThrowable(() -> start(journal.getParent()))).isNotNull();
        assertThat(output.getOut() + output.getErr())
                .contains("APPLICATION FAILED TO START")
                .contains(journal + " is not a regular file");
        assertThat(journal).isDirectory();
    }

    /**
     * A journal (or its lock file) the process may not open for writing: read-only for a user that
     * is not its owner, or immutable ({@code chattr +i}), which refuses even root. The start used to
     * end in a stack trace ("Application run failed", EACCES deep in its causes); the report names
     * the file and the kernel's reason, and the file is left as it was.
     */
    @ParameterizedTest
    @ValueSource(strings = {"journal.log", "journal.log.lock"})
    void aFileInTheDirectoryThatMayNotBeOpenedForWriting(String name, CapturedOutput output) throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("refused"));
        Path file = Files.writeString(dir.resolve(name), "");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("r--r--r--"));
        boolean immutable = "root".equals(System.getProperty("user.name"));
        if (immutable) {
            assumeTrue(chattr("+i", file) == 0, "chattr +i is not supported here");
        }
        try {
            assertThat(catchThrowable(() -> start(dir))).isNotNull();
            assertThat(output.getOut() + output.getErr())
                    .contains("APPLICATION FAILED TO START")
                    .contains("demo.data-dir")
                    .contains(file + " cannot be opened for writing")
                    .containsAnyOf("EACCES", "EPERM", "Permission denied", "Operation not permitted")
                    .doesNotContain("Application run failed");
            assertThat(Files.readString(file)).isEmpty();
        } finally {
            if (immutable) {
                chattr("-i", file);
            }
        }
    }

    private static int chattr(String flag, Path file) throws Exception {
        return new ProcessBuilder("chattr", flag, file.toString()).inheritIO().start().waitFor();
    }

    @Test
    void aDirectoryWhereTheLockFileShouldBe(CapturedOutput output) throws Exception {
        Path lock = Files.createDirectories(tmp.resolve("data/journal.log.lock"));
        assertThat(catchThrowable(() -> start(lock.getParent()))).isNotNull();
        assertThat(output.getOut() + output.getErr())
                .contains("APPLICATION FAILED TO START")
                .contains(lock + " is not a regular file")
                .doesNotContain("Application run failed");
        assertThat(lock).isDirectory();
    }

    /**
     * A journal with a second name (a hard link from another data directory): the lock is a file
     * beside the journal, so a service started on the other directory took the same journal under a
     * lock of its own, and the two overwrote each other's acknowledged changes. Neither starts now.
     */
    @Test
    void aJournalWithASecondNameInAnotherDirectory(CapturedOutput output) throws Exception {
        Path first = Files.createDirectories(tmp.resolve("first"));
        Path journal = Files.write(first.resolve("journal.log"), JournalCodec.fileHeader());
        Path second = Files.createDirectories(tmp.resolve("second"));
        Files.createLink(second.resolve("journal.log"), journal);
        for (Path dir : List.of(second, first)) {
            assertThat(catchThrowable(() -> start(dir))).as(dir.toString()).isNotNull();
            assertThat(output.getOut() + output.getErr())
                    .contains("APPLICATION FAILED TO START")
                    .contains(dir.resolve("journal.log") + " has 2 names (hard links)")
                    .doesNotContain("Application run failed");
        }
        assertThat(Files.readAllBytes(journal)).isEqualTo(JournalCodec.fileHeader());
    }

    @Test
    void aJournalOfANewerFormat(CapturedOutput output) throws Exception {
        byte[] header = JournalCodec.fileHeader();
        ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN).putInt(8, JournalCodec.FORMAT + 1);
        ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN).putInt(12, JournalCodec.crc(header, 0, 12));
        Path dir = Files.createDirectories(tmp.resolve("newer"));
        Files.write(dir.resolve("journal.log"), header);
        assertThat(catchThrowable(() -> start(dir))).isNotNull();
        assertThat(output.getOut() + output.getErr())
                .contains("APPLICATION FAILED TO START")
                .contains("in format " + (JournalCodec.FORMAT + 1))
                .contains(dir.resolve("journal.log").toString())
                .contains("the version of the service that wrote it");
        assertThat(Files.readAllBytes(dir.resolve("journal.log"))).isEqualTo(header);
    }

    private static void start(Path dataDir) {
        new SpringApplicationBuilder(NotesBoardApplication.class)
                .run("--server.port=0", "--demo.data-dir=" + dataDir, "--spring.lifecycle.timeout-per-shutdown-phase=10s")
                .close();
    }
}
