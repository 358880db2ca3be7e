package dev.corobridge.demo.board;

import java.text.BreakIterator;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Word statistics of a board: the CPU work of the demo, a pure function of a snapshot, so it can
 * run on the CPU dispatcher away from the pump.
 *
 * @param boardId  the board
 * @param revision the revision the statistics describe
 * @param current  whether the board was still at that revision when the result came back to the pump
 * @param notes    number of notes
 * @param words    number of words
 * @param topWords the most frequent words (at most 10), most frequent first, ties alphabetical
 */
public record WordStats(String boardId, long revision, boolean current, int notes, long words,
                        List<WordCount> topWords) {

    /** How many times a word occurs. */
    public record WordCount(String word, long count) {
    }

    public WordStats {
        topWords = List.copyOf(topWords);
    }

    /** Counts the words of a snapshot (Unicode word boundaries, case-folded); thread-confined. */
    public static WordStats of(BoardSnapshot board) {
        Map<String, Long> counts = new HashMap<>();
        long words = 0;
        BreakIterator it = BreakIterator.getWordInstance(Locale.ROOT);
        for (Note n : board.notes()) {
            String text = n.text();
            it.setText(text);
            int start = it.first();
            for (int end = it.next(); end != BreakIterator.DONE; start = end, end = it.next()) {
                String w = text.substring(start, end);
                if (w.codePoints().anyMatch(Character::isLetterOrDigit)) {
                    words++;
                    counts.merge(w.toLowerCase(Locale.ROOT), 1L, Long::sum);
                }
            }
        }
        List<WordCount> top = new ArrayList<>(counts.size());
        counts.forEach((w, c) -> top.add(new WordCount(w, c)));
        top.sort((a, b) -> a.count != b.count ? Long.compare(b.count, a.count) : a.word.compareTo(b.word));
        return new WordStats(board.id(), board.revision(), true, board.notes().size(), words,
                top.subList(0, Math.min(10, top.size())));
    }

    /** The same statistics, marked as describing an older revision than the board's current one. */
    public WordStats stale() {
        return new WordStats(boardId, revision, false, notes, words, topWords);
    }
}
