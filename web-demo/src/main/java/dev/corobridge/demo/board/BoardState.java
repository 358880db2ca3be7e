package dev.corobridge.demo.board;

import java.util.List;

/**
 * One board as a snapshot holds it: everything its future applies depend on. Immutable.
 *
 * @param id         the board's id
 * @param name       its name
 * @param revision   its revision
 * @param notesAdded notes ever added to it (a cluster replica's next note id is {@code n} and this + 1)
 * @param notes      its notes in the order they were added
 */
public record BoardState(String id, String name, long revision, long notesAdded, List<Note> notes) {

    public BoardState {
        notes = List.copyOf(notes);
    }
}
