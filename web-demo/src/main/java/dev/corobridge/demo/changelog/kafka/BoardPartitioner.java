package dev.corobridge.demo.changelog.kafka;

import java.nio.charset.StandardCharsets;

import org.apache.kafka.common.utils.Utils;

/**
 * The partition of a board's commands: Kafka's default hash of the key (murmur2 of the board id's
 * UTF-8 bytes) over the configured partition count. Every replica computes it alike, so the
 * board store can keep a per-partition limit that every replica agrees on. Immutable.
 */
public record BoardPartitioner(int partitions) {

    public BoardPartitioner {
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be at least 1, was " + partitions);
        }
    }

    /** The partition of {@code boardId}'s commands. */
    public int partitionOf(String boardId) {
        return Utils.toPositive(Utils.murmur2(boardId.getBytes(StandardCharsets.UTF_8))) % partitions;
    }
}
