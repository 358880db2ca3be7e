package dev.corobridge.bridge.internal;

import dev.corobridge.bridge.Awaitable;
import dev.corobridge.bridge.Outcome;
import dev.corobridge.bridge.Registration;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.function.Consumer;

/**
 * Internal API: not for use outside corobridge; may change without notice.
 *
 * <p>The settle-once outcome behind corobridge's awaitables: {@link dev.corobridge.bridge.Promise},
 * {@link dev.corobridge.bridge.Task} and the waits of the sync primitives extend it. It keeps the
 * {@link Awaitable} protocol — exactly-once callbacks, result before resume — in one place;
 * what a subclass adds is what {@link #cancel(CancellationException)} means for it (a channel
 * receive that already took an element refuses) and what happens the moment the outcome is
 * decided ({@link #onDecided}: a task cancels its work, a permit wait withdraws from kotlinx).
 * Deciding ({@link #decide}) is the subclass's own business: the public completers are
 * {@code Promise}'s.
 *
 * <h2>Implementation overview</h2>
 * One volatile state word holds either the pending callbacks (a Treiber stack of nodes; {@code null}
 * for none) or the final {@link Outcome}. Every way to finish is a single compare-and-set from
 * "pending" to its outcome ({@link #decide}): exactly one wins, the losers return {@code false} and
 * change nothing. The winner runs {@link #onDecided}, then the callbacks it detached, in
 * registration order. Because the outcome is written before any callback runs, every callback
 * (and every thread it wakes) sees it: result before resume. A disposed callback is skipped;
 * disposed nodes are pruned when they pile up, so awaiters that repeatedly give up on a long-lived
 * cell do not leak.
 *
 * <p><b>Thread-safety.</b> All methods are safe from any thread and lock-free.
 *
 * @param <T> the value type
 */
public class OutcomeCell<T> implements Awaitable<T> {

    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(OutcomeCell.class, "state", Object.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** {@code null} (pending, no callbacks), a {@link Node} (pending), or an {@link Outcome} (done). */
    @SuppressWarnings("unused")
    private volatile Object state;

    /** A pending cell. */
    public OutcomeCell() {
    }

    /**
     * Cancels, if still pending, with a plain {@link CancellationException}; {@code true} if this
     * call decided the outcome.
     */
    @Override
    public boolean cancel() {
        return cancel(new CancellationException("cancelled"));
    }

    /**
     * Cancels with {@code cause}; {@code true} if this call decided the outcome. A subclass whose
     * operation may refuse (it already matched) overrides this and returns {@code false} then.
     */
    public boolean cancel(CancellationException cause) {
        return decide(new Outcome.Cancelled<>(Objects.requireNonNull(cause, "cause")));
    }

    /**
     * Decides the outcome if it is still pending: runs {@link #onDecided}, then every callback.
     * Returns {@code true} if this call decided it.
     */
    protected final boolean decide(Outcome<T> outcome) {
        Objects.requireNonNull(outcome, "outcome");
        Object s;
        do {
            s = state;
            if (s instanceof Outcome) {
                return false;
            }
        } while (!STATE.compareAndSet(this, s, outcome));
        onDecided(outcome);
        if (s != null) {
            runCallbacks((Node) s, outcome);
        }
        return true;
    }

    /**
     * Runs once, on the deciding thread, after the outcome is published and before the callbacks:
     * what the subclass must do at that moment (stop the work of a cancelled task). Must not throw.
     */
    protected void onDecided(Outcome<T> outcome) {
    }

    @Override
    public final boolean isDone() {
        return state instanceof Outcome;
    }

    @Override
    @SuppressWarnings("unchecked")
    public final Outcome<T> outcomeOrNull() {
        Object s = state;
        return s instanceof Outcome ? (Outcome<T>) s : null;
    }

    @Override
    @SuppressWarnings("unchecked")
    public final Registration onComplete(Consumer<? super Outcome<T>> callback) {
        Objects.requireNonNull(callback, "callback");
        Node node = null;
        while (true) {
            Object s = state;
            if (s instanceof Outcome) {
                invoke(callback, (Outcome<T>) s);
                return Registration.NONE;
            }
            Node next = (Node) s;
            if (next != null && next.deadBelow >= 32) {
                Node pruned = prune(next);
                STATE.compareAndSet(this, s, pruned);
                continue;
            }
            if (node == null) {
                node = new Node(callback);
            }
            node.next = next;
            node.deadBelow = next == null ? 0 : next.deadBelow + (next.disposed ? 1 : 0);
            if (STATE.compareAndSet(this, s, node)) {
                return node;
            }
        }
    }

    /** A copy of the stack without disposed nodes (the original nodes stay valid for racing readers). */
    private static Node prune(Node top) {
        Node head = null;
        Node tail = null;
        for (Node n = top; n != null; n = n.next) {
            if (!n.disposed) {
                Node c = new Node(n.callback);
                c.original = n.original != null ? n.original : n;
                if (tail == null) {
                    head = c;
                } else {
                    tail.next = c;
                }
                tail = c;
            }
        }
        return head;
    }

    @SuppressWarnings("unchecked")
    private void runCallbacks(Node top, Outcome<T> outcome) {
        if (top.next == null) {
            if (!top.isDisposed()) {
                invoke((Consumer<? super Outcome<T>>) top.callback, outcome);
            }
            return;
        }
        // Newest-first stack: run oldest first. The nodes are not mutated, so a racing reader
        // (a registrant that lost to this settle) can still walk them safely.
        int n = 0;
        for (Node x = top; x != null; x = x.next) {
            n++;
        }
        Node[] order = new Node[n];
        for (Node x = top; x != null; x = x.next) {
            order[--n] = x;
        }
        for (Node x : order) {
            if (!x.isDisposed()) {
                invoke((Consumer<? super Outcome<T>>) x.callback, outcome);
            }
        }
    }

    private static <T> void invoke(Consumer<? super Outcome<T>> callback, Outcome<T> outcome) {
        try {
            callback.accept(outcome);
        } catch (Throwable e) {
            UncaughtFailures.report(null, e);
        }
    }

    @Override
    public String toString() {
        Object s = state;
        return getClass().getSimpleName() + "@" + Integer.toHexString(System.identityHashCode(this))
                + (s instanceof Outcome<?> o ? "[" + o + "]" : "[pending]");
    }

    /** A pending callback; its own {@link Registration}. */
    private static final class Node implements Registration {
        final Consumer<?> callback;
        Node next;
        /** Disposed nodes below this one when it was pushed: triggers pruning. */
        int deadBelow;
        /** For a pruned copy: the node the registrant holds. */
        Node original;
        volatile boolean disposed;

        Node(Consumer<?> callback) {
            this.callback = callback;
        }

        boolean isDisposed() {
            return disposed || (original != null && original.disposed);
        }

        @Override
        public void dispose() {
            disposed = true;
        }
    }
}
