package dev.corobridge.demo.changelog;

import dev.corobridge.demo.board.Change;

/**
 * A change as a {@link ChangeLog} hands it to its {@link ChangeSink}: durable, at its position.
 *
 * @param change   the change
 * @param position where it stands in the log
 * @param appendId the id the appender gave {@link ChangeLog#append} when this process appended the
 *                 change since the log started; {@link #NOT_APPENDED_HERE} for a replayed change
 *                 and for one another process (a replica) appended
 * @param traceId  the trace id of the request that made the change, when the log carries it (a
 *                 partitioned log's record headers, so another replica's apply logs under it);
 *                 {@code null} otherwise
 */
public record LoggedChange(Change change, LogPosition position, long appendId, String traceId) {

    /** A change with no trace id of its own. */
    public LoggedChange(Change change, LogPosition position, long appendId) {
        this(change, position, appendId, null);
    }

    /** The {@link #appendId()} of a change this process did not append since the log started. */
    public static final long NOT_APPENDED_HERE = 0;

    /** Whether this process appended the change since the log started (someone may wait for it). */
    public boolean appendedHere() {
        return appendId != NOT_APPENDED_HERE;
    }
}
