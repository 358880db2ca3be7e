package dev.corobridge.demo.changelog;

import java.util.List;

/**
 * Where a {@link ChangeLog} delivers the changes it holds, in log order: the replay at start, then
 * each change once it is durable, whoever appended it. The board code's sink applies them on the
 * pump, so the live state is always a prefix of the log, in the log's order: the state a restart
 * (or another replica) rebuilds.
 *
 * <p><b>Ordering and threads.</b> A log calls its sink from one thread at a time (not always the
 * same one), each call happening-before the next, with changes in log order (for a partitioned
 * log: in each partition's order); every {@link #replay} call comes before the first {@link #apply}
 * call. Calls must not block: a sink hands the changes on (to the pump) and returns. A change the
 * log delivers is never delivered again in this run.
 */
public interface ChangeSink {

    /** Changes that were durable when the log started, from the position the replay began at. */
    void replay(List<LoggedChange> changes);

    /** Changes that became durable since the log started. */
    void apply(List<LoggedChange> changes);
}
