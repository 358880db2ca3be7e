package dev.corobridge.bridge;

import java.time.Instant;
import java.util.Objects;

/**
 * One step of asynchronous work: which context ran it, on which thread, and when.
 *
 * <p>Immutable and therefore safe to share between threads.
 *
 * @param context the name of the execution context (a pump, a ring, a pool), never {@code null}
 * @param thread  the name of the thread that ran the step
 * @param threadId the thread's {@link Thread#threadId() id}
 * @param virtual whether that thread was a virtual thread
 * @param at      wall-clock time of the step
 * @param note    what the step did, may be empty
 */
public record Hop(String context, String thread, long threadId, boolean virtual, Instant at, String note) {

    public Hop {
        Objects.requireNonNull(context, "context");
        Objects.requireNonNull(thread, "thread");
        Objects.requireNonNull(at, "at");
        note = note == null ? "" : note;
    }

    /** A hop for the calling thread, now. */
    public static Hop here(String context, String note) {
        Thread t = Thread.currentThread();
        return new Hop(context, t.getName(), t.threadId(), t.isVirtual(), Instant.now(), note);
    }

    @Override
    public String toString() {
        return context + " @ " + thread + " (tid " + threadId + (virtual ? ", virtual" : "") + ")"
                + (note.isEmpty() ? "" : ": " + note);
    }
}
