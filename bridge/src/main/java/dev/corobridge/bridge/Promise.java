package dev.corobridge.bridge;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.function.Consumer;

/**
 * A completer: the {@link Awaitable} that Java code completes by hand, e.g. to wrap a callback API
 * so Kotlin can {@code await()} it.
 *
 * <pre>{@code
 * Promise<Row> p = new Promise<>();
 * client.query(sql, (row, err) -> { if (err != null) p.fail(err); else p.complete(row); });
 * return p;   // Java: p.await() on a virtual thread; Kotlin: p.await() suspends
 * }</pre>
 *
 * <h2>Implementation overview</h2>
 * One volatile state word holds either the pending callbacks (a Treiber stack of nodes; {@code null}
 * for none) or the final {@link Outcome}. Every way to finish — {@link #complete}, {@link #fail},
 * {@link #cancel}, {@link #timeOut}, {@link #shutDown} — is a single compare-and-set from "pending"
 * to its outcome: exactly one wins, the losers return {@code false} and change nothing. The winner
 * then runs the callbacks it detached, in registration order. Because the outcome is written before
 * any callback runs, every callback (and every thread it wakes) sees it: result before resume.
 * A disposed callback is skipped; disposed nodes are pruned when they pile up, so awaiters that
 * repeatedly give up on a long-lived promise do not leak.
 *
 * <p><b>Thread-safety.</b> All methods are safe from any thread and lock-free.
 *
 * @param <T> the value type
 */
public class Promise<T> implements Awaitable<T> {

    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(Promise.class, "state", Object.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** {@code null} (pending, no callbacks), a {@link Node} (pending), or an {@link Outcome} (done). */
    @SuppressWarnings("unused")
    private volatile Object state;

    /** Completes with {@code value}. Returns {@code true} if this call decided the outcome. */
    public boolean complete(T value) {
        return settle(new Outcome.Success<>(value));
    }

    /**
     * Fails with {@code error}; a {@link CancellationException} cancels instead. Returns {@code true}
     * if this call decided the outcome.
     */
    public boolean fail(Throwable error) {
        return settle(Outcome.ofError(error));
    }

    /** Cancels with a plain {@link CancellationException}. */
    @Override
    public boolean cancel() {
        return cancel(new CancellationException("cancelled"));
    }

    /** Cancels with {@code cause}. */
    public boolean cancel(CancellationException cause) {
        return settle(new Outcome.Cancelled<>(Objects.requireNonNull(cause, "cause")));
    }

    /** Cancels with a {@link TaskTimeoutException} for {@code limit}. */
    public boolean timeOut(Duration limit) {
        return settle(new Outcome.Cancelled<>(new TaskTimeoutException(limit)));
    }

    /** Cancels with a {@link ContextShutdownException}: the context it needed has shut down. */
    public boolean shutDown(String reason) {
        return settle(new Outcome.Cancelled<>(new ContextShutdownException(reason)));
    }

    /** Settles with {@code outcome}; {@code true} if this call decided it. */
    public boolean settle(Outcome<T> outcome) {
        Objects.requireNonNull(outcome, "outcome");
        Object s;
        do {
            s = state;
            if (s instanceof Outcome) {
                return false;
            }
        } while (!STATE.compareAndSet(this, s, outcome));
        onSettled(outcome);
        if (s != null) {
            runCallbacks((Node) s, outcome);
        }
        return true;
    }

    /** Hook for subclasses: runs once, on the settling thread, before the callbacks. */
    protected void onSettled(Outcome<T> outcome) {
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
            Tasks.reportUncaught(e);
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
