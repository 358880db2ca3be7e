package dev.corobridge.demo.board;

/**
 * A change to a board as subscribers see it, in revision order.
 *
 * @param revision the board's revision after the change
 * @param type     {@code note-added}, {@code note-edited} or {@code note-deleted}
 * @param boardId  the board
 * @param note     the note after the change (for a deletion: as it was last)
 */
public record BoardEvent(long revision, String type, String boardId, Note note) {

    public static final String NOTE_ADDED = "note-added";
    public static final String NOTE_EDITED = "note-edited";
    public static final String NOTE_DELETED = "note-deleted";
}
