package dev.corobridge.demo.board;

import java.util.List;

/**
 * A consistent copy of one board, taken on the pump; safe to hand to any thread.
 *
 * @param id       board id ({@code b1}, ...)
 * @param name     board name
 * @param revision grows by exactly 1 with every change to the board, 0 when created
 * @param notes    the notes in the order they were added
 */
public record BoardSnapshot(String id, String name, long revision, List<Note> notes) {

    public BoardSnapshot {
        notes = List.copyOf(notes);
    }
}
