package dev.corobridge.demo.board;

/**
 * One note on a board, immutable. {@code version} starts at 1 and grows by 1 with every edit.
 *
 * @param id      server-made id ({@code n1}, {@code n2}, ...): unique over all boards in one process,
 *                unique on its board in cluster mode (numbered per board)
 * @param boardId the board it is on
 * @param text    the text (1..2000 chars)
 * @param version the version, for optimistic concurrency
 */
public record Note(String id, String boardId, String text, long version) {
}
