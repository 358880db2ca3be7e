package dev.corobridge.demo.board;

/**
 * A change to the boards, as prepared on the pump, written to the change log and then applied. Ids
 * are in the change (assigned when it is prepared; a cluster replica's note ids when it is applied,
 * from the board's state, see {@link BoardStore}), so replaying the log rebuilds the same boards.
 * Whether a change is still valid is decided when it is applied (live and on replay alike), so a
 * change that lost a race (e.g. two edits with the same expected version) is rejected in both.
 */
public sealed interface Change {

    /** The board the change is about. */
    String boardId();

    /** A new board. */
    record CreateBoard(String boardId, String name) implements Change {
    }

    /**
     * A new note; {@code noteId} is {@link #ID_AT_APPLY} when the store decides it at apply (a
     * cluster replica's store, so that every replica gives the note the same id).
     */
    record AddNote(String boardId, String noteId, String text) implements Change {

        /** The {@code noteId} of a note whose id the apply decides. */
        public static final String ID_AT_APPLY = "";
    }

    /** A new text for a note whose version must still be {@code expectedVersion}. */
    record EditNote(String boardId, String noteId, String text, long expectedVersion) implements Change {
    }

    /** Removes a note; {@code expectedVersion} {@link #ANY_VERSION} deletes whatever version it has. */
    record DeleteNote(String boardId, String noteId, long expectedVersion) implements Change {
    }

    /** "Any version" for {@link DeleteNote}. */
    long ANY_VERSION = -1;
}
