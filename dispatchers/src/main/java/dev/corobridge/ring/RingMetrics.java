package dev.corobridge.ring;

import java.util.Map;

/**
 * A snapshot of a {@link RingPool}'s counters (cumulative since start). They count the file
 * operations the pool submits itself; socket I/O ({@link RingConnection}, {@link RingServer}) runs
 * through Netty's channels on the same loops and is not counted.
 *
 * @param transport       io_uring or the fallback
 * @param fallbackReason  why the fallback is active ({@code IoUring.unavailabilityCause()} or the
 *                        property that forced it), empty with io_uring
 * @param rings           number of rings
 * @param inFlight        file operations submitted and not completed, all rings
 * @param operations      file operations submitted, by kind ({@code read}, {@code write}, {@code fdatasync} ...)
 * @param errors          failed file operations by errno name
 * @param completions     file operations completed (any outcome)
 * @param openFiles       files opened through the pool and not closed
 */
public record RingMetrics(Transport transport, String fallbackReason, int rings, int inFlight,
                          Map<String, Long> operations, Map<String, Long> errors, long completions,
                          int openFiles) {

    public RingMetrics {
        operations = Map.copyOf(operations);
        errors = Map.copyOf(errors);
    }
}
