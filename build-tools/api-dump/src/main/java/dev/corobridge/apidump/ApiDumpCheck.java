package dev.corobridge.apidump;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * Compares a module's API, dumped from its compiled classes, with the module's checked-in dump
 * file, or rewrites that file.
 *
 * <p>The file is the dump of {@link ApiDump} under a two-line header; it is written as UTF-8 with
 * {@code \n} line ends, and read back with {@code \r\n} taken as {@code \n} (a checkout with
 * {@code core.autocrlf}) and a missing final newline forgiven, so only a change of the API itself
 * fails the check.
 *
 * <p>Stateless; thread-safe as long as two checks do not write the same file at once.
 */
public final class ApiDumpCheck {

    /** The system property that makes the check rewrite the dump instead of comparing. */
    public static final String UPDATE_PROPERTY = "corobridge.api.update";

    private ApiDumpCheck() {
    }

    /** How a check ended. */
    public enum Status {
        /** The dump file equals the API. */
        UNCHANGED,
        /** Update mode: the file was written (it was missing or differed). */
        WRITTEN,
        /** Update mode: the file already equalled the API and was left alone. */
        ALREADY_CURRENT,
        /** The API differs from the file: {@link Result#message()} has the diff. */
        DIFFERENT,
        /** There is no dump file yet. */
        MISSING,
        /**
         * A public or protected signature names a type of an {@code internal} package
         * ({@link InternalTypes}): fails in update mode too, and nothing is written.
         */
        INTERNAL_TYPE
    }

    /**
     * The outcome and, for every status, a message for a person: what differs and how to
     * regenerate, or what was written.
     */
    public record Result(Status status, String message) {
        /** Whether the build may go on. */
        public boolean passed() {
            return status != Status.DIFFERENT && status != Status.MISSING && status != Status.INTERNAL_TYPE;
        }
    }

    /**
     * The module a check is about.
     *
     * @param artifactId names the API in messages and in the file's header
     * @param classesDir the compiled classes, e.g. {@code <module>/target/classes}
     * @param dumpFile the checked-in dump, e.g. {@code <module>/api/<artifactId>.api}
     * @param displayDumpFile how to name the dump file in messages (relative to the repository)
     * @param regenerateCommand the command a person runs to regenerate the file
     */
    public record Module(String artifactId, Path classesDir, Path dumpFile, String displayDumpFile,
            String regenerateCommand) {
        public Module {
            Objects.requireNonNull(artifactId, "artifactId");
            Objects.requireNonNull(classesDir, "classesDir");
            Objects.requireNonNull(dumpFile, "dumpFile");
            Objects.requireNonNull(displayDumpFile, "displayDumpFile");
            Objects.requireNonNull(regenerateCommand, "regenerateCommand");
        }
    }

    /**
     * The dump file's text for {@code api}: the header (with why it names a kotlinx type that is
     * internal API, if it does: {@link InternalTypes#ALLOWED}), then the dump.
     */
    public static String fileText(String artifactId, String api) {
        return "# Public API of " + artifactId + ", generated from its compiled classes by build-tools/api-dump.\n"
                + "# Do not edit: regenerate with -D" + UPDATE_PROPERTY + "=true (see \"API dump\" in the README).\n"
                + InternalTypes.allowedNote(api)
                + "\n"
                + api;
    }

    /**
     * Checks (or, with {@code update}, rewrites) the module's dump file.
     *
     * @throws UncheckedIOException if the classes or the dump file cannot be read, or the file
     *     cannot be written
     */
    public static Result run(Module module, boolean update) {
        String api = ApiDump.render(module.classesDir());
        List<InternalTypes.Leak> leaks = InternalTypes.leaks(api);
        if (!leaks.isEmpty()) {
            StringBuilder message = new StringBuilder("The public API of " + module.artifactId()
                    + " names types of internal packages, which users must not use. Keep them out of every"
                    + " public and protected signature (supertypes, fields, parameters, return types, type arguments):\n");
            leaks.forEach(leak -> message.append("  ").append(leak).append('\n'));
            return new Result(Status.INTERNAL_TYPE, message.toString());
        }
        String expected = fileText(module.artifactId(), api);
        String actual = read(module.dumpFile());
        if (update) {
            if (expected.equals(actual == null ? null : normalized(actual))) {
                return new Result(Status.ALREADY_CURRENT, "API dump " + module.displayDumpFile() + " is up to date");
            }
            write(module.dumpFile(), expected);
            return new Result(Status.WRITTEN, "wrote API dump " + module.displayDumpFile()
                    + (actual == null ? " (new)" : "") + ": review it and commit it with the API change");
        }
        if (actual == null) {
            return new Result(Status.MISSING, "no API dump " + module.displayDumpFile() + " for " + module.artifactId()
                    + ". Generate it and commit it:\n  " + module.regenerateCommand());
        }
        String diff = UnifiedDiff.diff(lines(normalized(actual)), lines(expected),
                module.displayDumpFile() + " (checked in)", module.displayDumpFile() + " (compiled classes)", 3,
                line -> !line.isEmpty() && !line.startsWith(" ") && !line.startsWith("#") && !line.equals("}"));
        if (diff.isEmpty()) {
            return new Result(Status.UNCHANGED, "API of " + module.artifactId() + " matches " + module.displayDumpFile());
        }
        return new Result(Status.DIFFERENT, "The public API of " + module.artifactId() + " differs from "
                + module.displayDumpFile() + " (- checked in, + compiled classes):\n\n" + diff
                + "\nIf the change is intended, regenerate the dump and commit it with the change:\n  "
                + module.regenerateCommand() + "\n");
    }

    private static String read(Path file) {
        if (!Files.exists(file)) {
            return null;
        }
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    private static void write(Path file, String text) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Files.writeString(file, text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    /** {@code \r\n} as {@code \n}, and a final newline. */
    private static String normalized(String text) {
        String unix = text.replace("\r\n", "\n");
        return unix.isEmpty() || unix.endsWith("\n") ? unix : unix + "\n";
    }

    private static List<String> lines(String text) {
        return text.lines().toList();
    }
}
