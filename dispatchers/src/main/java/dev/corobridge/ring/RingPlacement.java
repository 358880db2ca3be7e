package dev.corobridge.ring;

import io.netty.channel.EventLoop;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Which of a pool's rings takes a piece of work: {@link #next()} round-robin, {@link #forKey}
 * sticky, {@link #leastLoaded()} by operations in flight; and the reverse look-ups the pool needs
 * (the ring of an event loop, whether the caller is on a ring thread, the total in flight).
 *
 * <p><b>Algorithm.</b> Round-robin takes a shared counter modulo the ring count ({@code floorMod}, so
 * the counter may wrap). Sticky placement spreads the key's hash ({@code h ^ h >>> 16}, as
 * {@code HashMap} does: keys whose hashes differ only in high bits still land on different rings)
 * and takes it modulo the ring count, so equal keys always get the same ring and every operation on
 * one file or connection is ordered on one loop. Least-loaded scans the rings' in-flight counts and
 * stops early at an idle ring; ties go to the lowest index. The counts move while they are read, so
 * it picks a ring that was least loaded a moment ago, which is what a placement hint needs.
 *
 * <p><b>Memory effects.</b> None of its own: it hands out rings, which are safely published
 * through this class's final fields; the in-flight counts it reads are the rings' own atomics.
 *
 * <p><b>Thread-safety.</b> Safe from any thread: the rings are fixed at construction (an array,
 * safely published through a final field), the round-robin counter is atomic.
 */
final class RingPlacement {

    private final Ring[] rings;
    private final List<Ring> list;
    private final AtomicInteger cursor = new AtomicInteger();

    /** @param rings the pool's rings, in index order; at least one */
    RingPlacement(List<Ring> rings) {
        if (rings.isEmpty()) {
            throw new IllegalArgumentException("a pool needs at least one ring");
        }
        this.list = List.copyOf(rings);
        this.rings = list.toArray(new Ring[0]);
    }

    /** Round-robin. */
    Ring next() {
        Ring[] rs = rings;
        return rs[Math.floorMod(cursor.getAndIncrement(), rs.length)];
    }

    /** The same ring for equal keys. */
    Ring forKey(Object key) {
        int h = Objects.requireNonNull(key, "key").hashCode();
        h ^= h >>> 16;
        Ring[] rs = rings;
        return rs[Math.floorMod(h, rs.length)];
    }

    /** The ring with the fewest operations in flight (ties: the lowest index). */
    Ring leastLoaded() {
        Ring[] rs = rings;
        Ring best = rs[0];
        int min = best.getInFlight();
        for (int i = 1; i < rs.length && min > 0; i++) {
            int n = rs[i].getInFlight();
            if (n < min) {
                min = n;
                best = rs[i];
            }
        }
        return best;
    }

    /** All rings, in index order (unmodifiable). */
    List<Ring> all() {
        return list;
    }

    /** How many rings. */
    int size() {
        return rings.length;
    }

    /** The ring that runs on {@code loop}, or {@code null} if none does. */
    Ring ringOf(EventLoop loop) {
        for (Ring r : rings) {
            if (r.eventLoop() == loop) {
                return r;
            }
        }
        return null;
    }

    /** The ring whose thread the caller is on, or {@code null}. */
    Ring current() {
        for (Ring r : rings) {
            if (r.isCurrentThread()) {
                return r;
            }
        }
        return null;
    }

    /** Operations in flight on all rings (a sum of moving counts). */
    int inFlight() {
        int n = 0;
        for (Ring r : rings) {
            n += r.getInFlight();
        }
        return n;
    }
}
