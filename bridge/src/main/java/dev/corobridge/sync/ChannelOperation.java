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
import java.util.Objects;
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
 * <p><b>A received element stays here.</b> The sender that hands an element to a waiting receive
 * leaves it in the operation's {@link #item} and decides the outcome with a shared marker
 * ({@link #RECEIVED}) instead of an {@link Outcome} it would allocate: the receiving thread reads
 * the element from the operation, whose cache line the hand-over moves to its core anyway, and an
 * outcome object made on the sender's core would be one line more to move (on a two-core machine,
 * ping-pong through a rendezvous channel took about 5 % less time for it). Callers never see the
 * marker: {@link #outcomeOrNull()}, callbacks and {@link #join()} get the element's own outcome,
 * made where it is read.
 *
 * <p><b>Thread-safety.</b> All methods are safe from any thread; the outcome is the
 * {@link OutcomeFields} algorithm on this object's two fields. The element is written (under the
 * core's lock) before the outcome is decided, and read only after the decided state is seen.
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

    /**
     * The state of a receive or next that got its element: the element stays in {@link #item} and
     * the outcome callers see is made from it where it is read ({@link #seen}), not by the sender
     * (see the class comment). Never shown to callers.
     */
    private static final Outcome<Object> RECEIVED = new Outcome.Success<>(null);

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
        boolean received = kind == ChannelCore.VALUE && mode != SEND;
        Outcome<T> outcome = received ? null : outcomeOf(kind);
        Object callbacks = OUTCOME.decide(this, received ? RECEIVED : outcome);
        if (callbacks == OutcomeFields.LOST) {
            return; // impossible: only the party that took this waiter out of the queue completes it
        }
        JoinerSlot.wake(this, JOINER);
        if (callbacks != null) {
            OUTCOME.runCallbacks(callbacks, received ? receivedOutcome() : outcome);
        }
    }

    /** The outcome of a completion other than a received element ({@link #RECEIVED}). */
    @SuppressWarnings("unchecked")
    private Outcome<T> outcomeOf(int kind) {
        Object x = item;
        item = null;
        return switch (kind) {
            case ChannelCore.VALUE -> (Outcome<T>) SENT; // a send: a receive's value is RECEIVED
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
        if (OUTCOME.outcomeOrNull(this) == RECEIVED) {
            return element();
        }
        return Awaitable.super.join(); // done (or a second joiner): the outcome, rethrown as every join rethrows it
    }

    @Override
    public boolean isDone() {
        return OUTCOME.isDone(this);
    }

    @Override
    public Outcome<T> outcomeOrNull() {
        return seen(OUTCOME.outcomeOrNull(this));
    }

    @Override
    public Registration onComplete(Consumer<? super Outcome<T>> callback) {
        if (mode == SEND) {
            return OUTCOME.onComplete(this, callback); // a send's outcome is always the real one
        }
        Objects.requireNonNull(callback, "callback");
        return OUTCOME.onComplete(this, (Outcome<T> o) -> callback.accept(seen(o)));
    }

    /** The state {@code o} as callers see it: for {@link #RECEIVED}, the element's own outcome. */
    private Outcome<T> seen(Outcome<T> o) {
        return o == (Object) RECEIVED ? receivedOutcome() : o;
    }

    /** The outcome of a receive or next that got its element, as callers see it. */
    private Outcome<T> receivedOutcome() {
        return new Outcome.Success<>(element());
    }

    /** What a receive or next that got its element returns: the element, or it as a {@link Next}. */
    @SuppressWarnings("unchecked")
    private T element() {
        Object x = item; // written before the state that said so was published
        return mode == NEXT ? (T) new Next.Value<>(x) : (T) x;
    }

    @Override
    public String toString() {
        return (mode == SEND ? "send" : mode == NEXT ? "next" : "receive") + OutcomeFields.describeOutcome(outcomeOrNull());
    }
}
