package dev.corobridge.demo.snapshot;

import java.util.List;

import dev.corobridge.demo.board.BoardState;
import dev.corobridge.demo.changelog.LogPosition;

/**
 * A replica's boards as they were after applying the log up to {@code covers}: a restart loads
 * them and replays the log from those positions on. Immutable.
 *
 * @param topic  the log they come from (a snapshot of another topic is not used)
 * @param covers per partition, the offset of the first change not in the snapshot
 * @param boards the boards, in the store's order
 */
public record BoardsSnapshot(String topic, List<LogPosition> covers, List<BoardState> boards) {

    public BoardsSnapshot {
        covers = List.copyOf(covers);
        boards = List.copyOf(boards);
    }
}
