package dev.corobridge.demo.board;

/**
 * Receives every change of the board list, on the pump, in the order the changes are applied: a
 * board created, or a board whose note count or revision changed. Must not block.
 */
public interface BoardListListener {

    /**
     * Called on the pump with the board's line of the list as it is after a change.
     *
     * @return {@code false} to be removed (e.g. the subscriber fell too far behind)
     */
    boolean onBoard(BoardSummary board);

    /** Called on the pump once when the store stops delivering (shutdown); the default does nothing. */
    default void onClose() {
    }
}
