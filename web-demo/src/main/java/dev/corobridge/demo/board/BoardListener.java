package dev.corobridge.demo.board;

/**
 * Receives the changes of one board, on the pump, in revision order. Must not block.
 */
public interface BoardListener {

    /**
     * Called on the pump for each change.
     *
     * @return {@code false} to be removed (e.g. the subscriber fell too far behind)
     */
    boolean onEvent(BoardEvent event);

    /** Called on the pump once when the store stops delivering (shutdown); the default does nothing. */
    default void onClose() {
    }
}
