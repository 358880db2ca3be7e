package dev.corobridge.demo.board;

/**
 * The result of applying a {@link Change}: the new board, or for a note change the event that
 * subscribers received (copying a whole board per note change would cost O(notes)).
 *
 * @param board the new board ({@code null} for a note change)
 * @param event the event ({@code null} for a new board)
 */
public record Applied(BoardSnapshot board, BoardEvent event) {

    /** The note the change was about; {@code null} for a new board. */
    public Note note() {
        return event == null ? null : event.note();
    }
}
