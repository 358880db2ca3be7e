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
 * (and every thread it wakes) sees it: result before resume. A registration pushes a node with
 * one compare-and-set; once pushed, a node is never changed except for its withdrawn flag.
 *
 * <p><b>Withdrawn callbacks.</b> {@link Registration#dispose()} sets its node's withdrawn flag
 * once (the decider skips such nodes) and counts the withdrawal in the cell. Nodes cannot be
 * unlinked in place (a node is shared with racing readers), so when at least {@value #PRUNE_AT}
 * withdrawn nodes make up at least half of the stack — each node records the stack's size below
 * and including it when pushed — the withdrawing thread builds a copy of the stack without them
 * and installs it with one compare-and-set on the state word, then subtracts the nodes it dropped
 * from the count. The copy's nodes point to the originals, which their registrants hold, so a
 * withdrawal through an original still reaches the copy, and the old nodes stay valid for threads
 * still walking them. If the state changed meanwhile (a registration, another prune, the outcome),
 * the withdrawing thread looks again, so pruning is lock-free; a count that is stale (a prune
 * that has yet to subtract) costs a walk, never a wrong prune, because the decision to copy is
 * taken on the flags of the stack itself. Copying at half the stack makes each prune cost no more
 * than the withdrawals it removes: {@code dispose()} is a flag, a counter and a read, amortised.
 *
 * <p><b>Memory bound.</b> Once no withdrawal is in progress, a pending cell keeps fewer withdrawn
 * nodes than {@code max(}{@value #PRUNE_AT}{@code , live callbacks)}, so fewer than twice its live
 * callbacks plus {@value #PRUNE_AT} nodes in all, whatever the order of registrations and
 * withdrawals (the last withdrawal to count itself sees every earlier one and prunes). Awaiters
 * that repeatedly give up on a long-lived cell (timed waits, cancelled coroutines, cancelled
 * waiters of the sync primitives) therefore do not pile up. A decided cell keeps no callbacks.
 *
 * <p><b>Thread-safety.</b> All methods are safe from any thread and lock-free.
 *
 * @param <T> the value type
 */
public class OutcomeCell<T> implements Awaitable<T> {

    /** The fewest withdrawn callbacks worth a pruned copy of the stack (see the class comment). */
    static final int PRUNE_AT = 16;

    private static final VarHandle STATE;
    private static final VarHandle WITHDRAWN;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            STATE = lookup.findVarHandle(OutcomeCell.class, "state", Object.class);
            WITHDRAWN = lookup.findVarHandle(OutcomeCell.class, "withdrawn", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** {@code null} (pending, no callbacks), a {@link Node} (pending), or an {@link Outcome} (done). */
    @SuppressWarnings("unused")
    private volatile Object state;

    /**
     * Withdrawn nodes in the pending stack: incremented after a node's flag is set, decremented by
     * what a prune dropped after it was installed, so briefly off while either is under way.
     */
    private volatile int withdrawn;

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
        CallbackNode node = null;
        while (true) {
            Object s = state;
            if (s instanceof Outcome) {
                invoke(callback, (Outcome<T>) s);
                return Registration.NONE;
            }
            Node next = (Node) s;
            if (node == null) {
                node = new CallbackNode(this, callback);
            }
            node.next = next;
            node.size = next == null ? 1 : next.size + 1;
            if (STATE.compareAndSet(this, s, node)) {
                return node;
            }
        }
    }

    /**
     * A node of this cell's stack was withdrawn (its flag is set): counts it and, while withdrawn
     * nodes are at least {@value #PRUNE_AT} and half of the stack, replaces the stack with a copy
     * without them (see the class comment).
     */
    private void callbackWithdrawn() {
        if (state instanceof Outcome) {
            return; // decided: the stack is gone
        }
        int count = (int) WITHDRAWN.getAndAdd(this, 1) + 1;
        while (count >= PRUNE_AT) {
            Object s = state;
            if (!(s instanceof Node top) || 2 * count < top.size) {
                return;
            }
            int dropped = 0;
            for (Node n = top; n != null; n = n.next) {
                if (n.registered().disposed) {
                    dropped++;
                }
            }
            if (dropped < PRUNE_AT || 2 * dropped < top.size) {
                return; // the count is ahead: a prune that dropped them has yet to subtract
            }
            // Flags only go from false to true: this pass keeps at most what the first one left.
            CallbackNode[] kept = new CallbackNode[top.size - dropped];
            int k = 0;
            for (Node n = top; n != null; n = n.next) {
                CallbackNode registered = n.registered();
                if (!registered.disposed) {
                    kept[k++] = registered;
                }
            }
            if (STATE.compareAndSet(this, s, copyOf(kept, k))) {
                WITHDRAWN.getAndAdd(this, k - top.size);
                return;
            }
            count = withdrawn; // the stack changed (a registration, a prune, the outcome): look again
        }
    }

    /** A new stack of copies of {@code kept[0..count)}, top first, each with its size. */
    private static Node copyOf(CallbackNode[] kept, int count) {
        Node below = null;
        for (int i = count - 1; i >= 0; i--) {
            CopyNode c = new CopyNode(kept[i]);
            c.next = below;
            c.size = count - i;
            below = c;
        }
        return below;
    }

    /** The nodes of the pending stack, withdrawn ones included (0 once decided): for tests. */
    final int retainedCallbacks() {
        int n = 0;
        for (Object s = state; s instanceof Node x; s = x.next) {
            n++;
        }
        return n;
    }

    @SuppressWarnings("unchecked")
    private void runCallbacks(Node top, Outcome<T> outcome) {
        if (top.next == null) {
            CallbackNode only = top.registered();
            if (!only.disposed) {
                invoke((Consumer<? super Outcome<T>>) only.callback, outcome);
            }
            return;
        }
        // Newest-first stack: run oldest first. The nodes are not mutated, so a racing reader
        // (a registrant that lost to this settle, a withdrawal pruning) can still walk them safely.
        Node[] order = new Node[top.size];
        int n = 0;
        for (Node x = top; x != null; x = x.next) {
            order[n++] = x;
        }
        for (int i = n - 1; i >= 0; i--) {
            CallbackNode x = order[i].registered();
            if (!x.disposed) {
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

    /**
     * A node of the pending stack: a registered callback or, in a pruned stack, a copy of one.
     * {@code next} and {@code size} are written before the node is published by a compare-and-set
     * on the state word, and never after.
     */
    private abstract static class Node {
        Node next;
        /** The nodes from this one to the bottom, withdrawn ones included. */
        int size;

        /** The node its registrant holds: its callback and withdrawn flag. */
        abstract CallbackNode registered();
    }

    /** A registered callback, and the {@link Registration} its registrant holds. */
    private static final class CallbackNode extends Node implements Registration {

        private static final VarHandle DISPOSED;

        static {
            try {
                DISPOSED = MethodHandles.lookup().findVarHandle(CallbackNode.class, "disposed", boolean.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        final OutcomeCell<?> cell;
        final Consumer<?> callback;
        volatile boolean disposed;

        CallbackNode(OutcomeCell<?> cell, Consumer<?> callback) {
            this.cell = cell;
            this.callback = callback;
        }

        @Override
        CallbackNode registered() {
            return this;
        }

        /** Withdraws the callback once; the first call counts it in the cell (which may prune). */
        @Override
        public void dispose() {
            if (!disposed && DISPOSED.compareAndSet(this, false, true)) {
                cell.callbackWithdrawn();
            }
        }
    }

    /** A pruned stack's copy of a callback node; its registrant still holds (and withdraws) the original. */
    private static final class CopyNode extends Node {
        final CallbackNode original;

        CopyNode(CallbackNode original) {
            this.original = original;
        }

        @Override
        CallbackNode registered() {
            return original;
        }
    }
}
