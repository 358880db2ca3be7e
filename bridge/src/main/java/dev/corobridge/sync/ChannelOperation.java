package dev.corobridge.sync;

import dev.corobridge.bridge.Awaitable;
import dev.corobridge.bridge.Outcome;
import dev.corobridge.bridge.Registration;
import dev.corobridge.bridge.internal.BlockingGuard;
import dev.corobridge.bridge.internal.BriefWait;
import dev.corobridge.bridge.internal.CauseCancellable;
import dev.corobridge.bridge.internal.JoinerSlot;
import dev.corobridge.bridge.internal.OutcomeFields;
import dev.corobridge.stream.Next;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CancellationException;
import java.util.function.Consumer;

/**
 * A Java caller's send or receive on an {@link AsyncChannel} that had to wait: the waiter queued
 * in the {@link ChannelCore} and the {@link Awaitable} returned to the caller, one object.
 *
 * <p><b>The operation decides its cancellation.</b> {@link #cancel} withdraws the operation from
 * the core's queue if it is still there and returns {@code true} (the outcome is then cancelled:
 * nothing was sent or received); if it was already matched it returns {@code false} and the
 * outcome is the operation's own (the element, or "sent"). The decision is synchronous.
 *
 * <p><b>Blocking join.</b> A thread in {@link #join()} (a virtual thread, typically) is kept in one
 * field and unparked by the completing party as soon as the outcome is published: no callback
 * node ({@link JoinerSlot}; a second thread joining at once waits through a callback as usual). A
 * virtual thread first waits briefly ({@link BriefWait}: a few spins, then yields to the threads
 * queued on its carrier, at most a few microseconds), so that a partner's hand-over a moment later
 * costs no park and unpark.
 *
 * <p><b>Thread-safety.</b> All methods are safe from any thread; the outcome is the
 * {@link OutcomeFields} algorithm on this object's two fields.
 *
 * @param <T> the value type: {@code Void} (send), the element (receive) or {@link Next} (next)
 */
final class ChannelOperation<T> extends ChannelWaiter implements Awaitable<T>, CauseCancellable {

    static final int SEND = 0;
    static final int RECEIVE = 1;
    static final int NEXT = 2;

    private static final OutcomeFields OUTCOME = OutcomeFields.in(MethodHandles.lookup());
    private static final VarHandle JOINER;

    static {
        try {
            JOINER = MethodHandles.lookup().findVarHandle(ChannelOperation.class, "joiner", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The outcome of every completed send (immutable, so shared). */
    private static final Outcome<Void> SENT = new Outcome.Success<>(null);

    /** {@link OutcomeFields}' state word. */
    @SuppressWarnings("unused")
    private volatile Object state;

    /** {@link OutcomeFields}' count of withdrawn callbacks. */
    @SuppressWarnings("unused")
    private volatile int withdrawn;

    /** The thread parked in {@link #join()}, unparked by {@link #complete} ({@link JoinerSlot}). */
    @SuppressWarnings("unused")
    private volatile Thread joiner;

    private final ChannelCore<?> core;
    private final int mode;

    private ChannelOperation(ChannelCore<?> core, int mode, Object element) {
        this.core = core;
        this.mode = mode;
        this.item = element;
    }

    /** A send of {@code element} that waits (or completes at once if the channel changed meanwhile). */
    static Awaitable<Void> send(ChannelCore<?> core, Object element) {
        ChannelOperation<Void> op = new ChannelOperation<>(core, SEND, element);
        op.started(core.send(op));
        return op;
    }

    /** A receive ({@link #RECEIVE}) or next ({@link #NEXT}) that waits (or completes at once). */
    static <T> Awaitable<T> receive(ChannelCore<?> core, int mode) {
        ChannelOperation<T> op = new ChannelOperation<>(core, mode, null);
        op.started(core.receive(op));
        return op;
    }

    private void started(int result) {
        if (result != ChannelCore.WAIT) {
            complete(result);
        }
    }

    @Override
    protected boolean isSender() {
        return mode == SEND;
    }

    @Override
    protected void complete(int kind) {
        Outcome<T> outcome = outcomeOf(kind);
        Object callbacks = OUTCOME.decide(this, outcome);
        if (callbacks == OutcomeFields.LOST) {
            return; // impossible: only the party that took this waiter out of the queue completes it
        }
        JoinerSlot.wake(this, JOINER);
        OUTCOME.runCallbacks(callbacks, outcome);
    }

    @SuppressWarnings("unchecked")
    private Outcome<T> outcomeOf(int kind) {
        Object x = item;
        item = null;
        return switch (kind) {
            case ChannelCore.VALUE -> switch (mode) {
                case SEND -> (Outcome<T>) SENT;
                case NEXT -> (Outcome<T>) new Outcome.Success<>(new Next.Value<>(x));
                default -> new Outcome.Success<>((T) x);
            };
            case ChannelCore.CLOSED -> switch (mode) {
                case SEND -> Outcome.ofError(core.sendException());
                case NEXT -> (Outcome<T>) new Outcome.Success<>(core.end());
                default -> Outcome.ofError(core.receiveException());
            };
            default -> new Outcome.Cancelled<>((CancellationException) x);
        };
    }

    @Override
    public boolean cancel() {
        return cancel(new CancellationException("channel operation cancelled"));
    }

    @Override
    public boolean cancel(CancellationException cause) {
        if (isDone() || !core.withdraw(this)) {
            return false;
        }
        item = cause;
        complete(ChannelCore.WITHDRAWN);
        return true;
    }

    @Override
    public T join() throws InterruptedException {
        if (!isDone()) {
            BlockingGuard.checkMayBlock("join()");
            if (!BriefWait.onVirtualThread(this)) {
                JoinerSlot.park(this, JOINER);
            }
        }
        return Awaitable.super.join(); // done (or a second joiner): the outcome, rethrown as every join rethrows it
    }

    @Override
    public boolean isDone() {
        return OUTCOME.isDone(this);
    }

    @Override
    public Outcome<T> outcomeOrNull() {
        return OUTCOME.outcomeOrNull(this);
    }

    @Override
    public Registration onComplete(Consumer<? super Outcome<T>> callback) {
        return OUTCOME.onComplete(this, callback);
    }

    @Override
    public String toString() {
        return (mode == SEND ? "send" : mode == NEXT ? "next" : "receive") + OUTCOME.describe(this);
    }
}
