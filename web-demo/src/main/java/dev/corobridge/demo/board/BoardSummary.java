package dev.corobridge.demo.board;

/**
 * One line of the board list.
 *
 * @param id       board id
 * @param name     board name
 * @param notes    how many notes it has
 * @param revision its current revision
 */
public record BoardSummary(String id, String name, int notes, long revision) {
}
