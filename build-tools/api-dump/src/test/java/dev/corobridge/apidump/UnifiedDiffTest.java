package dev.corobridge.apidump;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/** {@link UnifiedDiff}: GNU diff's output for known cases, and a patch round trip for random ones. */
class UnifiedDiffTest {

    private static final Pattern HUNK = Pattern.compile("@@ -(\\d+)(?:,(\\d+))? \\+(\\d+)(?:,(\\d+))? @@.*");

    private static String diff(List<String> a, List<String> b) {
        return UnifiedDiff.diff(a, b, "old", "new", 3, line -> false);
    }

    @Test
    void equalTextsHaveNoDiff() {
        assertEquals("", diff(List.of("a", "b"), List.of("a", "b")));
        assertEquals("", diff(List.of(), List.of()));
    }

    @Test
    void aChangeInTheMiddleHasThreeLinesOfContext() {
        List<String> a = List.of("a", "b", "c", "d", "e", "f", "g", "h", "i", "j");
        List<String> b = List.of("a", "b", "c", "d", "E", "f", "g", "h", "i", "j");
        assertEquals("""
                --- old
                +++ new
                @@ -2,7 +2,7 @@
                 b
                 c
                 d
                -e
                +E
                 f
                 g
                 h
                """, diff(a, b));
    }

    @Test
    void rangesFollowGnuConventions() {
        assertEquals("--- old\n+++ new\n@@ -0,0 +1,2 @@\n+a\n+b\n", diff(List.of(), List.of("a", "b")));
        assertEquals("--- old\n+++ new\n@@ -1 +0,0 @@\n-a\n", diff(List.of("a"), List.of()));
        assertEquals("--- old\n+++ new\n@@ -1 +1,2 @@\n+n\n x\n", diff(List.of("x"), List.of("n", "x")));
        assertEquals("--- old\n+++ new\n@@ -1,2 +1 @@\n x\n-y\n", diff(List.of("x", "y"), List.of("x")));
    }

    @Test
    void distantChangesGetTheirOwnHunksAndNearOnesShareOne() {
        List<String> a = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            a.add("line" + i);
        }
        List<String> far = new ArrayList<>(a);
        far.set(1, "changed1");
        far.set(18, "changed18");
        assertEquals(2, countHunks(diff(a, far)));
        List<String> near = new ArrayList<>(a);
        near.set(5, "changed5");
        near.set(12, "changed12"); // six unchanged lines between: the two contexts meet, one hunk
        assertEquals(1, countHunks(diff(a, near)));
        near.set(12, "line12");
        near.set(13, "changed13"); // seven between: two hunks, as GNU diff makes them
        assertEquals(2, countHunks(diff(a, near)));
    }

    @Test
    void aHunkHeaderNamesItsSection() {
        List<String> a = List.of("class A {", "  m1", "}", "", "class B {", "  m2", "  m3", "  m4", "  m5", "}");
        List<String> b = List.of("class A {", "  m1", "}", "", "class B {", "  m2", "  m3", "  m4", "  m5", "  m6", "}");
        String diff = UnifiedDiff.diff(a, b, "old", "new", 1, line -> line.startsWith("class "));
        assertTrue(diff.contains("@@ -9,2 +9,3 @@ class B {\n   m5\n+  m6\n }\n"), diff);
    }

    @Test
    void negativeContextIsRefused() {
        assertThrows(IllegalArgumentException.class,
                () -> UnifiedDiff.diff(List.of(), List.of(), "a", "b", -1, line -> false));
    }

    @Test
    void applyingTheDiffToTheOldTextGivesTheNewOne() {
        Random random = new Random(42);
        for (int round = 0; round < 2_000; round++) {
            List<String> a = randomLines(random);
            List<String> b = randomLines(random);
            int context = random.nextInt(4);
            String diff = UnifiedDiff.diff(a, b, "old", "new", context, line -> false);
            assertEquals(b, apply(a, diff), () -> "round trip failed for\n" + a + "\n" + b + "\n" + diff);
            assertEquals(a.equals(b), diff.isEmpty());
        }
    }

    /** Falls back to "all removed, all added" past the DP bound, still a correct diff. */
    @Test
    void aHugeChangeIsStillACorrectDiff() {
        int n = (int) Math.sqrt(UnifiedDiff.MAX_CELLS) + 10;
        List<String> a = new ArrayList<>();
        List<String> b = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            a.add("a" + i);
            b.add("b" + i);
        }
        String diff = diff(a, b);
        assertEquals(b, apply(a, diff));
    }

    private static List<String> randomLines(Random random) {
        List<String> lines = new ArrayList<>();
        int size = random.nextInt(15);
        for (int i = 0; i < size; i++) {
            lines.add(String.valueOf((char) ('a' + random.nextInt(4))));
        }
        return lines;
    }

    private static int countHunks(String diff) {
        return (int) diff.lines().filter(l -> l.startsWith("@@")).count();
    }

    /** A strict patch: every context and removed line must match the old text where the hunk says. */
    private static List<String> apply(List<String> old, String diff) {
        List<String> result = new ArrayList<>();
        List<String> lines = diff.lines().toList();
        int position = 0; // next old line to copy
        int i = 2; // after the --- and +++ lines
        while (i < lines.size()) {
            Matcher hunk = HUNK.matcher(lines.get(i++));
            assertTrue(hunk.matches(), "not a hunk header: " + lines.get(i - 1));
            int oldStart = Integer.parseInt(hunk.group(1));
            int oldCount = hunk.group(2) == null ? 1 : Integer.parseInt(hunk.group(2));
            int start = oldCount == 0 ? oldStart : oldStart - 1;
            while (position < start) {
                result.add(old.get(position++));
            }
            while (i < lines.size() && !lines.get(i).startsWith("@@")) {
                String line = lines.get(i++);
                String text = line.substring(1);
                switch (line.charAt(0)) {
                    case ' ' -> {
                        assertEquals(old.get(position++), text);
                        result.add(text);
                    }
                    case '-' -> assertEquals(old.get(position++), text);
                    case '+' -> result.add(text);
                    default -> throw new AssertionError("bad diff line: " + line);
                }
            }
        }
        while (position < old.size()) {
            result.add(old.get(position++));
        }
        return result;
    }
}
