package dev.corobridge.apidump;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * A line diff in unified format ({@code diff -u}, {@code git diff}), so a failing API check reads
 * like a review diff and can be applied with {@code patch} or {@code git apply}.
 *
 * <p>Algorithm: the common head and tail are cut off, then a longest common subsequence over the
 * rest (dynamic programming, O(n·m) in the changed region only, which is small for real API
 * changes; past {@value #MAX_CELLS} cells the region is shown as removed and re-added instead).
 * Hunks carry {@code context} unchanged lines on each side and merge when their contexts touch.
 * Like git, a hunk header names the nearest preceding "section" line of the old text (here: the
 * class a changed member belongs to).
 *
 * <p>Stateless; thread-safe.
 */
final class UnifiedDiff {

    /** Upper bound of the DP table (ints): 16 M cells, 64 MB. */
    static final long MAX_CELLS = 16_000_000L;

    private UnifiedDiff() {
    }

    private enum Op { KEEP, DELETE, INSERT }

    /** One line of the edit script; {@code oldIndex}/{@code newIndex} are the positions before it. */
    private record Edit(Op op, int oldIndex, int newIndex, String text) {
    }

    /**
     * The unified diff from {@code oldLines} to {@code newLines}, "" if they are equal.
     *
     * @param section which old lines head a section, for the text after each {@code @@ ... @@}
     */
    static String diff(List<String> oldLines, List<String> newLines, String oldLabel, String newLabel,
            int context, Predicate<String> section) {
        if (context < 0) {
            throw new IllegalArgumentException("context must be >= 0, was " + context);
        }
        List<Edit> script = editScript(oldLines, newLines);
        List<int[]> hunks = hunks(script, context);
        if (hunks.isEmpty()) {
            return "";
        }
        StringBuilder out = new StringBuilder();
        out.append("--- ").append(oldLabel).append('\n');
        out.append("+++ ").append(newLabel).append('\n');
        for (int[] hunk : hunks) {
            int from = hunk[0];
            int to = hunk[1];
            int oldStart = script.get(from).oldIndex();
            int newStart = script.get(from).newIndex();
            int oldCount = 0;
            int newCount = 0;
            for (int i = from; i < to; i++) {
                Op op = script.get(i).op();
                oldCount += op != Op.INSERT ? 1 : 0;
                newCount += op != Op.DELETE ? 1 : 0;
            }
            out.append("@@ -").append(range(oldStart, oldCount)).append(" +").append(range(newStart, newCount))
                    .append(" @@");
            String heading = heading(oldLines, oldStart, section);
            if (heading != null) {
                out.append(' ').append(heading);
            }
            out.append('\n');
            for (int i = from; i < to; i++) {
                Edit edit = script.get(i);
                out.append(switch (edit.op()) {
                    case KEEP -> ' ';
                    case DELETE -> '-';
                    case INSERT -> '+';
                }).append(edit.text()).append('\n');
            }
        }
        return out.toString();
    }

    /** GNU's convention: "start,count" 1-based; an empty range names the line before it; ",1" is left out. */
    private static String range(int start, int count) {
        if (count == 0) {
            return start + ",0";
        }
        return count == 1 ? String.valueOf(start + 1) : (start + 1) + "," + count;
    }

    private static String heading(List<String> oldLines, int before, Predicate<String> section) {
        for (int i = Math.min(before, oldLines.size()) - 1; i >= 0; i--) {
            if (section.test(oldLines.get(i))) {
                return oldLines.get(i);
            }
        }
        return null;
    }

    /** [from, to) ranges of the script, each a hunk with its context. */
    private static List<int[]> hunks(List<Edit> script, int context) {
        List<int[]> hunks = new ArrayList<>();
        int i = 0;
        while (i < script.size()) {
            if (script.get(i).op() == Op.KEEP) {
                i++;
                continue;
            }
            int from = Math.max(0, i - context);
            if (!hunks.isEmpty() && from <= hunks.getLast()[1]) {
                from = hunks.removeLast()[0]; // contexts touch: one hunk
            }
            int end = i;
            while (end < script.size() && script.get(end).op() != Op.KEEP) {
                end++;
            }
            hunks.add(new int[] {from, Math.min(script.size(), end + context)});
            i = end;
        }
        return hunks;
    }

    private static List<Edit> editScript(List<String> a, List<String> b) {
        int head = 0;
        while (head < a.size() && head < b.size() && a.get(head).equals(b.get(head))) {
            head++;
        }
        int tail = 0;
        while (tail < a.size() - head && tail < b.size() - head
                && a.get(a.size() - 1 - tail).equals(b.get(b.size() - 1 - tail))) {
            tail++;
        }
        List<Edit> script = new ArrayList<>();
        for (int i = 0; i < head; i++) {
            script.add(new Edit(Op.KEEP, i, i, a.get(i)));
        }
        middle(a.subList(head, a.size() - tail), b.subList(head, b.size() - tail), head, head, script);
        int oldTail = a.size() - tail;
        int newTail = b.size() - tail;
        for (int i = 0; i < tail; i++) {
            script.add(new Edit(Op.KEEP, oldTail + i, newTail + i, a.get(oldTail + i)));
        }
        return script;
    }

    /** The LCS-based edits between two regions that differ at both ends; deletions before insertions. */
    private static void middle(List<String> a, List<String> b, int oldOffset, int newOffset, List<Edit> script) {
        int n = a.size();
        int m = b.size();
        if ((long) (n + 1) * (m + 1) > MAX_CELLS) {
            for (int i = 0; i < n; i++) {
                script.add(new Edit(Op.DELETE, oldOffset + i, newOffset, a.get(i)));
            }
            for (int j = 0; j < m; j++) {
                script.add(new Edit(Op.INSERT, oldOffset + n, newOffset + j, b.get(j)));
            }
            return;
        }
        // lcs[i][j]: length of the LCS of a[i..] and b[j..].
        int[][] lcs = new int[n + 1][m + 1];
        for (int i = n - 1; i >= 0; i--) {
            for (int j = m - 1; j >= 0; j--) {
                lcs[i][j] = a.get(i).equals(b.get(j)) ? lcs[i + 1][j + 1] + 1
                        : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
            }
        }
        int i = 0;
        int j = 0;
        while (i < n || j < m) {
            if (i < n && j < m && a.get(i).equals(b.get(j))) {
                script.add(new Edit(Op.KEEP, oldOffset + i, newOffset + j, a.get(i)));
                i++;
                j++;
            } else if (j == m || i < n && lcs[i + 1][j] >= lcs[i][j + 1]) {
                script.add(new Edit(Op.DELETE, oldOffset + i, newOffset + j, a.get(i)));
                i++;
            } else {
                script.add(new Edit(Op.INSERT, oldOffset + i, newOffset + j, b.get(j)));
                j++;
            }
        }
    }
}
