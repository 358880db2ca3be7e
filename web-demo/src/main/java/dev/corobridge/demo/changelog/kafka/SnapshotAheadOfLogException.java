package dev.corobridge.demo.changelog.kafka;

/**
 * The snapshot a replica loaded covers more of a partition than the command topic holds: the topic
 * was deleted and created again (or the replica points at another cluster's topic of that name).
 * Its boards are then not what the log holds, and a replica that went on would diverge from every
 * other (the log is the source of truth). Found at start, it stops the start (explained by the
 * service's failure analyzer); found later (the brokers were away during the start), writes are
 * refused while it holds. Immutable.
 */
public final class SnapshotAheadOfLogException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final String topic;
    private final int partition;
    private final long snapshotOffset;
    private final long endOffset;

    SnapshotAheadOfLogException(String topic, int partition, long snapshotOffset, long endOffset) {
        super("the replica's snapshot covers partition " + partition + " of topic " + topic + " up to offset "
                + snapshotOffset + ", but that partition ends at offset " + endOffset
                + ": the topic was created again since, or is another cluster's");
        this.topic = topic;
        this.partition = partition;
        this.snapshotOffset = snapshotOffset;
        this.endOffset = endOffset;
    }

    /** The topic. */
    public String topic() {
        return topic;
    }

    /** The first partition found behind the snapshot. */
    public int partition() {
        return partition;
    }

    /** The offset the snapshot covers up to (exclusive) on that partition. */
    public long snapshotOffset() {
        return snapshotOffset;
    }

    /** The partition's end offset. */
    public long endOffset() {
        return endOffset;
    }
}
