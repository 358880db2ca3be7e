package dev.corobridge.bridge.internal;

import dev.corobridge.bridge.Outcome;
import java.util.ArrayDeque;
import java.util.function.Consumer;

/**
 * Runs the callbacks of a completion in bounded stack when completions nest: a callback that
 * completes another awaitable, whose callback completes another, and so on (a lock's waiter that
 * releases in its callback, which grants the next waiter; a chain of promises). Up to
 * {@value #INLINE_DEPTH} such callbacks nest on one thread as plain calls; a completion deeper than
 * that queues its callbacks on the thread, and the outermost callback of the thread runs them once
 * it returns, in the order they were queued, each again with up to {@value #INLINE_DEPTH} nested
 * below it. So a chain of any length runs on the completing thread, as before, without overflowing
 * its stack (as {@code CompletableFuture} runs its dependents), and by the time the outermost
 * completion returns every callback it caused has run.
 *
 * <p>The price, only beyond that depth: a completion there returns before its callbacks run. A
 * callback that blocks waiting for something its own completions' callbacks would do waits for
 * itself (blocking in a callback is already a mistake: callbacks run on whatever thread completes).
 * Registering on an awaitable that is already done runs the callback at once, at any depth.
 *
 * <p><b>Thread-safety.</b> The state is per thread ({@link ThreadLocal}): one depth counter and a
 * queue made at the first deep completion of that thread.
 */
final class NestedCallbacks {

    /** How many completion callbacks nest on one thread before deeper ones are queued. */
    static final int INLINE_DEPTH = 32;

    private static final ThreadLocal<NestedCallbacks> CURRENT = ThreadLocal.withInitial(NestedCallbacks::new);

    private int depth;
    /** Queued callbacks and their outcomes, alternating; null until the thread first needs it. */
    private ArrayDeque<Object> queued;

    private NestedCallbacks() {
    }

    /** Runs {@code callback} with {@code outcome} now, or after the thread's outer callback if nested too deep. */
    static <T> void run(Consumer<? super Outcome<T>> callback, Outcome<T> outcome) {
        NestedCallbacks n = CURRENT.get();
        if (n.depth >= INLINE_DEPTH) {
            ArrayDeque<Object> q = n.queued;
            if (q == null) {
                q = n.queued = new ArrayDeque<>();
            }
            q.addLast(callback);
            q.addLast(outcome);
            return;
        }
        n.depth++;
        try {
            OutcomeFields.invoke(callback, outcome); // reports what the callback throws
        } finally {
            n.depth--;
        }
        if (n.depth == 0 && n.queued != null && !n.queued.isEmpty()) {
            n.runQueued();
        }
    }

    /** The outermost level: runs what deeper completions queued, and what those queue in turn. */
    @SuppressWarnings("unchecked")
    private void runQueued() {
        ArrayDeque<Object> q = queued;
        Object c;
        while ((c = q.pollFirst()) != null) {
            Outcome<Object> o = (Outcome<Object>) q.pollFirst();
            depth++;
            try {
                OutcomeFields.invoke((Consumer<? super Outcome<Object>>) c, o);
            } finally {
                depth--;
            }
        }
    }
}
