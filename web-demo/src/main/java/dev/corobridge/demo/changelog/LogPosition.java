package dev.corobridge.demo.changelog;

/**
 * Where a change stands in a {@link ChangeLog}: its partition and its offset in that partition. A
 * log with one partition (the journal: partition 0, the record's byte offset in the file) orders
 * all its changes by offset; a partitioned log (a Kafka topic partitioned by board id) orders the
 * changes of one partition, and so of one board, by offset. Offsets of one partition grow with
 * log order; they need not be consecutive. Immutable.
 *
 * @param partition the partition, from 0
 * @param offset    the offset in that partition, from 0
 */
public record LogPosition(int partition, long offset) {

    public LogPosition {
        if (partition < 0 || offset < 0) {
            throw new IllegalArgumentException("a log position is not negative: " + partition + "/" + offset);
        }
    }

    /** Whether this position comes at or after {@code other} in the same partition. */
    public boolean isAtOrAfter(LogPosition other) {
        return partition == other.partition && offset >= other.offset;
    }
}
