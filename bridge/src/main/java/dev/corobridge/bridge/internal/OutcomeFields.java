package dev.corobridge.bridge.internal;

import dev.corobridge.bridge.Outcome;
import dev.corobridge.bridge.Registration;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Internal API: not for use outside corobridge; may change without notice.
 *
 * <p>The settle-once outcome behind corobridge's awaitables, kept in two fields of the awaitable
 * itself — {@code private volatile Object state} and {@code private volatile int withdrawn} — so
 * that a {@link dev.corobridge.bridge.Task} or {@link dev.corobridge.bridge.Promise} is one object
 * without a superclass of this package in its signature. An awaitable class declares the two
 * fields, holds one instance of this record made from its own lookup
 * ({@code static final OutcomeFields OUTCOME = OutcomeFields.in(MethodHandles.lookup())}) and
 * passes itself to its methods. ({@link OutcomeCell} does exactly that, for the awaitables that
 * are not API.) A record, so that the JIT treats the handles of a {@code static final} instance as
 * constants, as it would {@code static final} handles.
 *
 * <p>It keeps the {@link dev.corobridge.bridge.Awaitable} protocol — exactly-once callbacks,
 * result before resume — in one place; what the owner adds is what cancellation means for it and
 * what happens the moment the outcome is decided: the owner decides with {@link #decide}, runs
 * its own reaction when that call won, then {@link #runCallbacks}.
 *
 * <h2>Implementation overview</h2>
 * The volatile state word holds either the pending callbacks (a Treiber stack of nodes; {@code null}
 * for none) or the final {@link Outcome}. Every way to finish is a single compare-and-set from
 * "pending" to its outcome ({@link #decide}): exactly one wins, the losers get {@link #LOST} and
 * change nothing. The winner runs its reaction, then the callbacks it detached, in registration
 * order. Because the outcome is written before any callback runs, every callback (and every thread
 * it wakes) sees it: result before resume. A registration pushes a node with one compare-and-set;
 * once pushed, a node is never changed except for its withdrawn flag, and its link once a prune
 * has replaced its stack (below).
 *
 * <p><b>Withdrawn callbacks.</b> {@link Registration#dispose()} sets its node's withdrawn flag
 * once (the decider skips such nodes) and counts the withdrawal in the owner. Nodes cannot be
 * unlinked in place (a node is shared with racing readers), so when at least {@value #PRUNE_AT}
 * withdrawn nodes make up at least half of the stack — each node records the stack's size below
 * and including it when pushed — the withdrawing thread builds a copy of the stack without them
 * and installs it with one compare-and-set on the state word, then subtracts the nodes it dropped
 * from the count. The copy's nodes point to the originals, which their registrants hold, so a
 * withdrawal through an original still reaches the copy, and the old nodes stay valid for threads
 * still walking them. If the state changed meanwhile (a registration, another prune, the outcome),
 * the withdrawing thread looks again, so pruning is lock-free. After its compare-and-set the
 * pruning thread clears the links of the stack it replaced: a registered node a copy points to
 * would otherwise keep, through its link, every node below it, withdrawn ones included, and those
 * theirs, so that the stack stayed short while every callback ever withdrawn stayed reachable. A
 * walk of a replaced stack may therefore end early; a pruning thread that finds fewer nodes than
 * the stack's size looks again; a count that is stale (a prune
 * that has yet to subtract) costs a walk, never a wrong prune, because the decision to copy is
 * taken on the flags of the stack itself. Copying at half the stack makes each prune cost no more
 * than the withdrawals it removes: {@code dispose()} is a flag, a counter and a read, amortised.
 *
 * <p><b>Memory bound.</b> Once no withdrawal is in progress, a pending owner keeps fewer withdrawn
 * nodes than {@code max(}{@value #PRUNE_AT}{@code , live callbacks)}, so fewer than twice its live
 * callbacks plus {@value #PRUNE_AT} nodes in all, whatever the order of registrations and
 * withdrawals (the last withdrawal to count itself sees every earlier one and prunes). Awaiters
 * that repeatedly give up on a long-lived awaitable (timed waits, cancelled coroutines, cancelled
 * waiters of the sync primitives) therefore do not pile up. A decided owner keeps no callbacks.
 *
 * <p><b>Thread-safety.</b> All methods are safe from any thread and lock-free.
 *
 * @param state the owner's {@code state} field
 * @param withdrawn the owner's {@code withdrawn} field
 */
public record OutcomeFields(VarHandle state, VarHandle withdrawn) {

    /** The fewest withdrawn callbacks worth a pruned copy of the stack (see the class comment). */
    static final int PRUNE_AT = 16;

    /** What {@link #decide} returns to a caller that did not decide the outcome. */
    public static final Object LOST = new Object();

    static {
        // Initialised with the first awaitable, not at the first failure a callback reports: that
        // may be a StackOverflowError deep in a stack, where a class's initialisation fails for good.
        UncaughtFailures.count();
    }

    /** The fields {@code state} and {@code withdrawn} of the class whose own lookup this is. */
    public static OutcomeFields in(MethodHandles.Lookup lookup) {
        try {
            Class<?> owner = lookup.lookupClass();
            return new OutcomeFields(lookup.findVarHandle(owner, "state", Object.class),
                    lookup.findVarHandle(owner, "withdrawn", int.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * Decides {@code owner}'s outcome if it is still pending. Returns {@link #LOST} if it was
     * already decided; else the callbacks it detached, to pass to {@link #runCallbacks} once the
     * owner reacted to the outcome.
     */
    public Object decide(Object owner, Outcome<?> outcome) {
        Objects.requireNonNull(outcome, "outcome");
        Object s;
        do {
            s = state.getVolatile(owner);
            if (s instanceof Outcome) {
                return LOST;
            }
        } while (!state.compareAndSet(owner, s, outcome));
        return s;
    }

    /**
     * Runs the callbacks that a winning {@link #decide} returned, oldest first; nested completions
     * beyond a bound run after the thread's outer callback returns ({@link NestedCallbacks}).
     */
    @SuppressWarnings("unchecked")
    public <T> void runCallbacks(Object detached, Outcome<T> outcome) {
        if (!(detached instanceof Node top)) {
            return;
        }
        if (top.next == null) {
            CallbackNode only = top.registered();
            if (!only.disposed) {
                NestedCallbacks.run((Consumer<? super Outcome<T>>) only.callback, outcome);
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
                NestedCallbacks.run((Consumer<? super Outcome<T>>) x.callback, outcome);
            }
        }
    }

    /** Whether what a winning {@link #decide} returned holds callbacks ({@link #runCallbacks} would run some, withdrawn ones aside). */
    public boolean detachedAny(Object detached) {
        return detached instanceof Node;
    }

    /** Whether {@code owner} is decided. */
    public boolean isDone(Object owner) {
        return state.getVolatile(owner) instanceof Outcome;
    }

    /** {@code owner}'s outcome, or null while it is pending. */
    @SuppressWarnings("unchecked")
    public <T> Outcome<T> outcomeOrNull(Object owner) {
        Object s = state.getVolatile(owner);
        return s instanceof Outcome ? (Outcome<T>) s : null;
    }

    /** Registers {@code callback} on {@code owner}, or runs it at once if it is decided. */
    @SuppressWarnings("unchecked")
    public <T> Registration onComplete(Object owner, Consumer<? super Outcome<T>> callback) {
        Objects.requireNonNull(callback, "callback");
        CallbackNode node = null;
        while (true) {
            Object s = state.getVolatile(owner);
            if (s instanceof Outcome) {
                invoke(callback, (Outcome<T>) s);
                return Registration.NONE;
            }
            Node next = (Node) s;
            if (node == null) {
                node = new CallbackNode(this, owner, callback);
            }
            node.next = next;
            node.size = next == null ? 1 : next.size + 1;
            if (state.compareAndSet(owner, s, node)) {
                return node;
            }
        }
    }

    /** The nodes of {@code owner}'s pending stack, withdrawn ones included (0 once decided): for tests. */
    public int retainedCallbacks(Object owner) {
        int n = 0;
        for (Object s = state.getVolatile(owner); s instanceof Node x; s = x.next) {
            n++;
        }
        return n;
    }

    /** {@code owner}'s {@code toString()} suffix: {@code [outcome]} or {@code [pending]}. */
    public String describe(Object owner) {
        return describeOutcome(state.getVolatile(owner) instanceof Outcome<?> o ? o : null);
    }

    /** {@code outcome} as {@link #describe(Object)} shows an owner's: {@code [pending]} for {@code null}. */
    public static String describeOutcome(Outcome<?> outcome) {
        return outcome == null ? "[pending]" : "[" + outcome + "]";
    }

    /**
     * A node of {@code owner}'s stack was withdrawn (its flag is set): counts it and, while withdrawn
     * nodes are at least {@value #PRUNE_AT} and half of the stack, replaces the stack with a copy
     * without them (see the class comment).
     */
    private void callbackWithdrawn(Object owner) {
        if (state.getVolatile(owner) instanceof Outcome) {
            return; // decided: the stack is gone
        }
        int count = (int) withdrawn.getAndAdd(owner, 1) + 1;
        while (count >= PRUNE_AT) {
            Object s = state.getVolatile(owner);
            if (!(s instanceof Node top) || 2 * count < top.size) {
                return;
            }
            int dropped = 0;
            int walked = 0;
            for (Node n = top; n != null; n = n.next) {
                walked++;
                if (n.registered().disposed) {
                    dropped++;
                }
            }
            if (walked != top.size) {
                count = (int) withdrawn.getVolatile(owner); // another prune replaced this stack and unlinked it: look again
                continue;
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
            if (state.compareAndSet(owner, s, copyOf(kept, k))) {
                withdrawn.getAndAdd(owner, k - top.size);
                unlink(top);
                return;
            }
            count = (int) withdrawn.getVolatile(owner); // the stack changed: look again
        }
    }

    /**
     * Clears the links of a stack that a prune has just replaced. Its registered nodes stay reachable
     * from their registrants and from the copies of the kept ones; linked, each would keep every node
     * below it — the withdrawn callbacks the prune dropped, and through earlier stacks every
     * callback ever withdrawn. No decider holds this stack (a decide that detached it would have
     * made the prune's compare-and-set fail); a racing prune that walks it finds it shorter than
     * its size and looks again.
     */
    private static void unlink(Node top) {
        for (Node n = top; n != null; ) {
            Node below = n.next;
            n.next = null;
            n = below;
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

    /** Runs one callback with {@code outcome}; what it throws goes to the uncaught-failure handler. */
    static <T> void invoke(Consumer<? super Outcome<T>> callback, Outcome<T> outcome) {
        try {
            callback.accept(outcome);
        } catch (Throwable e) {
            UncaughtFailures.report(null, e);
        }
    }

    /**
     * A node of the pending stack: a registered callback or, in a pruned stack, a copy of one.
     * {@code next} and {@code size} are written before the node is published by a compare-and-set
     * on the state word, and never after, except that a prune clears {@code next} of the nodes of
     * the stack it replaced.
     */
    private abstract static class Node {
        /** The node below; cleared once a prune has replaced the stack ({@link #unlink}). */
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

        final OutcomeFields fields;
        final Object owner;
        final Consumer<?> callback;
        volatile boolean disposed;

        CallbackNode(OutcomeFields fields, Object owner, Consumer<?> callback) {
            this.fields = fields;
            this.owner = owner;
            this.callback = callback;
        }

        @Override
        CallbackNode registered() {
            return this;
        }

        /** Withdraws the callback once; the first call counts it in the owner (which may prune). */
        @Override
        public void dispose() {
            if (!disposed && DISPOSED.compareAndSet(this, false, true)) {
                fields.callbackWithdrawn(owner);
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
