package dev.corobridge.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The documentation's code is compiled code: every Java and Kotlin code block of the repository's
 * Markdown files (READMEs, API.md, CONTRIBUTING, CHANGELOG) must equal a region of this module's
 * sources, so a renamed method breaks the build instead of leaving a stale README.
 *
 * <p>The rules, checked here:
 * <ul>
 *   <li>A region of a source file under {@code examples/src} is delimited by the lines
 *       {@code // snippet-begin: <id>} and {@code // snippet-end: <id>}.</li>
 *   <li>A {@code java} or {@code kotlin} block is preceded (blank lines aside) by
 *       {@code <!-- snippet: <id> -->}, and its lines equal the region's, both with their common
 *       indentation removed and trailing blanks ignored. A fragment that cannot compile on its own
 *       is preceded by {@code <!-- not compiled: <why> -->} instead; keep them rare.</li>
 *   <li>Every fenced block names its language ({@code text} for output and diagrams), so that no
 *       Java or Kotlin block escapes the check by having none.</li>
 *   <li>Every region is shown by some block (an unused region is a stale marker).</li>
 * </ul>
 * A mismatch fails with the file, the line of the block and a diff (region → README).
 */
class ReadmeSnippetsTest {

    private static final Pattern BEGIN = Pattern.compile("^\\s*//\\s*snippet-begin:\\s*(\\S+)\\s*$");
    private static final Pattern END = Pattern.compile("^\\s*//\\s*snippet-end:\\s*(\\S+)\\s*$");
    private static final Pattern SNIPPET = Pattern.compile("^\\s*<!--\\s*snippet:\\s*(\\S+)\\s*-->\\s*$");
    private static final Pattern NOT_COMPILED = Pattern.compile("^\\s*<!--\\s*not compiled:\\s*\\S.*-->\\s*$");
    private static final Pattern FENCE = Pattern.compile("^(\\s*)(```+|~~~+)\\s*([^\\s`]*).*$");
    private static final Set<String> CODE_LANGUAGES = Set.of("java", "kotlin", "kt");

    /** One fenced block of a Markdown file. */
    record Block(Path file, int line, String language, String marker, List<String> lines) {
    }

    @Test
    void everyJavaAndKotlinBlockIsCompiledSource() throws IOException {
        Path root = repositoryRoot();
        Map<String, List<String>> regions = regions(root.resolve("examples/src"));
        List<String> problems = new ArrayList<>();
        Set<String> used = new LinkedHashSet<>();
        int compiled = 0;
        for (Path md : markdownFiles(root)) {
            for (Block b : blocks(md, problems)) {
                compiled += check(root, b, regions, used, problems);
            }
        }
        for (String id : regions.keySet()) {
            if (!used.contains(id)) {
                problems.add("region '" + id + "' (examples/src) is shown by no Markdown block: remove its markers");
            }
        }
        if (!problems.isEmpty()) {
            fail(problems.size() + " documentation snippet problem(s):\n\n" + String.join("\n\n", problems));
        }
        assertTrue(compiled >= 6, "expected the READMEs' code blocks, found " + compiled);
    }

    /** The check itself must find a drift, naming the file and the block, and pass the same text. */
    @Test
    void aBlockThatDriftedFromItsRegionIsReportedWithADiff() {
        Map<String, List<String>> regions = Map.of("r", List.of("int a = 1;", "int b = 2;"));
        List<String> problems = new ArrayList<>();
        Block drifted = new Block(Path.of("X.md"), 7, "java", "<!-- snippet: r -->", List.of("int a = 1;", "int b = 3;"));
        check(Path.of(""), drifted, regions, new LinkedHashSet<>(), problems);
        assertEquals(1, problems.size(), problems.toString());
        assertTrue(problems.get(0).contains("X.md:7") && problems.get(0).contains("-int b = 2;")
                && problems.get(0).contains("+int b = 3;"), problems.get(0));

        problems.clear();
        Block same = new Block(Path.of("X.md"), 7, "java", "<!-- snippet: r -->", List.of("  int a = 1;", "  int b = 2;"));
        check(Path.of(""), same, regions, new LinkedHashSet<>(), problems);
        assertEquals(List.of(), problems);

        Block unmarked = new Block(Path.of("X.md"), 9, "kotlin", null, List.of("val x = 1"));
        check(Path.of(""), unmarked, regions, new LinkedHashSet<>(), problems);
        assertEquals(1, problems.size(), problems.toString());
        assertTrue(problems.get(0).contains("X.md:9"), problems.get(0));
    }

    /** Returns 1 if the block is compiled source, 0 if it is exempt; adds what is wrong to {@code problems}. */
    private static int check(Path root, Block b, Map<String, List<String>> regions, Set<String> used, List<String> problems) {
        String where = (root.toString().isEmpty() ? b.file() : root.relativize(b.file().toAbsolutePath())) + ":" + b.line();
        if (b.language().isEmpty()) {
            problems.add(where + ": a code block without a language; name it (text for output or diagrams)");
            return 0;
        }
        if (!CODE_LANGUAGES.contains(b.language())) {
            return 0;
        }
        if (b.marker() != null && NOT_COMPILED.matcher(b.marker()).matches()) {
            return 0;
        }
        Matcher m = b.marker() == null ? null : SNIPPET.matcher(b.marker());
        if (m == null || !m.matches()) {
            problems.add(where + ": a " + b.language() + " block without a marker; put its source in examples/src between"
                    + " '// snippet-begin: <id>' and '// snippet-end: <id>' and '<!-- snippet: <id> -->' before the block"
                    + " (or '<!-- not compiled: <why> -->' for a fragment)");
            return 0;
        }
        String id = m.group(1);
        List<String> region = regions.get(id);
        if (region == null) {
            problems.add(where + ": snippet '" + id + "' names no region of examples/src");
            return 0;
        }
        used.add(id);
        List<String> expected = normalise(region);
        List<String> actual = normalise(b.lines());
        if (!expected.equals(actual)) {
            problems.add(where + ": the " + b.language() + " block differs from its source, region '" + id
                    + "' of examples/src (--- source, +++ Markdown; copy the source into the block):\n" + diff(expected, actual));
        }
        return 1;
    }

    private static Path repositoryRoot() {
        String configured = System.getProperty("corobridge.repo.root");
        Path root = (configured != null ? Path.of(configured) : Path.of("").toAbsolutePath().getParent()).normalize();
        assertTrue(Files.isRegularFile(root.resolve("README.md")) && Files.isDirectory(root.resolve("examples")),
                "not the repository root: " + root);
        return root;
    }

    private static List<Path> markdownFiles(Path root) throws IOException {
        try (Stream<Path> s = Files.walk(root)) {
            return s.filter(p -> p.toString().endsWith(".md") && Files.isRegularFile(p))
                    .filter(p -> {
                        for (Path part : root.relativize(p)) {
                            String n = part.toString();
                            if (n.startsWith(".") || n.equals("target") || n.equals("node_modules")) {
                                return false;
                            }
                        }
                        return true;
                    })
                    .sorted()
                    .toList();
        }
    }

    private static Map<String, List<String>> regions(Path src) throws IOException {
        Map<String, List<String>> regions = new LinkedHashMap<>();
        List<Path> sources;
        try (Stream<Path> s = Files.walk(src)) {
            sources = s.filter(p -> p.toString().endsWith(".java") || p.toString().endsWith(".kt")).sorted().toList();
        }
        for (Path f : sources) {
            List<String> lines = Files.readAllLines(f);
            String open = null;
            List<String> body = null;
            for (int i = 0; i < lines.size(); i++) {
                Matcher begin = BEGIN.matcher(lines.get(i));
                Matcher end = END.matcher(lines.get(i));
                if (begin.matches()) {
                    assertTrue(open == null, f + ":" + (i + 1) + ": region '" + begin.group(1) + "' inside '" + open + "'");
                    open = begin.group(1);
                    body = new ArrayList<>();
                    assertTrue(!regions.containsKey(open), f + ":" + (i + 1) + ": region '" + open + "' defined twice");
                } else if (end.matches()) {
                    assertEquals(open, end.group(1), f + ":" + (i + 1) + ": snippet-end without its snippet-begin");
                    regions.put(open, body);
                    open = null;
                } else if (open != null) {
                    body.add(lines.get(i));
                }
            }
            assertTrue(open == null, f + ": region '" + open + "' has no snippet-end");
        }
        return regions;
    }

    private static List<Block> blocks(Path md, List<String> problems) {
        List<String> lines;
        try {
            lines = Files.readAllLines(md);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<Block> blocks = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher open = FENCE.matcher(lines.get(i));
            if (!open.matches()) {
                continue;
            }
            String fence = open.group(2);
            String language = open.group(3).toLowerCase(java.util.Locale.ROOT);
            String marker = null;
            for (int k = i - 1; k >= 0; k--) {
                if (!lines.get(k).isBlank()) {
                    String t = lines.get(k).trim();
                    marker = t.startsWith("<!--") ? t : null;
                    break;
                }
            }
            List<String> body = new ArrayList<>();
            int j = i + 1;
            while (j < lines.size() && !lines.get(j).trim().equals(fence)) {
                body.add(lines.get(j));
                j++;
            }
            if (j == lines.size()) {
                problems.add(md + ":" + (i + 1) + ": a code block that is never closed");
            }
            blocks.add(new Block(md, i + 1, language, marker, body));
            i = j;
        }
        return blocks;
    }

    /** Trailing blanks and blank edge lines dropped, the common indentation removed. */
    private static List<String> normalise(List<String> lines) {
        List<String> out = new ArrayList<>(lines.stream().map(String::stripTrailing).toList());
        while (!out.isEmpty() && out.get(0).isEmpty()) {
            out.remove(0);
        }
        while (!out.isEmpty() && out.get(out.size() - 1).isEmpty()) {
            out.remove(out.size() - 1);
        }
        int indent = out.stream().filter(l -> !l.isEmpty())
                .mapToInt(l -> l.length() - l.stripLeading().length()).min().orElse(0);
        return out.stream().map(l -> l.isEmpty() ? l : l.substring(indent)).toList();
    }

    /** A line diff (longest common subsequence): ' ' kept, '-' only in the source, '+' only in the Markdown. */
    private static String diff(List<String> a, List<String> b) {
        int[][] lcs = new int[a.size() + 1][b.size() + 1];
        for (int i = a.size() - 1; i >= 0; i--) {
            for (int j = b.size() - 1; j >= 0; j--) {
                lcs[i][j] = a.get(i).equals(b.get(j)) ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
            }
        }
        StringBuilder out = new StringBuilder("--- source\n+++ Markdown\n");
        int i = 0;
        int j = 0;
        while (i < a.size() || j < b.size()) {
            if (i < a.size() && j < b.size() && a.get(i).equals(b.get(j))) {
                out.append(' ').append(a.get(i++)).append('\n');
                j++;
            } else if (j < b.size() && (i == a.size() || lcs[i][j + 1] >= lcs[i + 1][j])) {
                out.append('+').append(b.get(j++)).append('\n');
            } else {
                out.append('-').append(a.get(i++)).append('\n');
            }
        }
        return out.toString();
    }
}
