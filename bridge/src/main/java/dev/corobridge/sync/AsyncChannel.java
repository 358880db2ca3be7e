package dev.corobridge.sync;

import dev.corobridge.bridge.Awaitable;
import dev.corobridge.bridge.internal.Completions;
import dev.corobridge.stream.Next;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import kotlinx.coroutines.channels.ClosedReceiveChannelException;
import kotlinx.coroutines.channels.ClosedSendChannelException;

/**
 * A channel between producers and consumers whose {@code send} waits while the channel is full and
 * {@code receive} while it is empty — without blocking a thread: the semantics of kotlinx's
 * {@link kotlinx.coroutines.channels.Channel Channel} (rendezvous, buffered, unlimited; close and
 * cancel), with a Java face and one guarantee more (below).
 *
 * <pre>{@code
 * AsyncChannel<Job> jobs = AsyncChannel.bounded(16);
 * // Java, on virtual threads                    // Kotlin
 * jobs.sendAsync(job).join();                     jobs.send(job)
 * for (var e = jobs.nextAsync().join(); e.hasValue(); e = jobs.nextAsync().join()) {
 *     run(e.value());                             jobs.receiveAsFlow().collect { run(it) }
 * }
 * jobs.close();   // consumers drain what is buffered, then see the end
 * }</pre>
 *
 * <ul>
 *   <li><b>Capacity.</b> {@link #rendezvous()} (a send waits for a receive and vice versa),
 *       {@link #bounded(int)}, {@link #unbounded()} (a send never waits). Elements are received in
 *       the order they were sent; waiting senders and receivers are served FIFO.</li>
 *   <li><b>Close and cancel.</b> {@link #close()} stops sending: receivers drain the buffer, then
 *       {@code receive()} fails with {@link ClosedReceiveChannelException} (or the cause given to
 *       {@link #close(Throwable)}) and {@link #nextAsync()} returns {@link Next.End} (or
 *       {@link Next.Failed}); a later {@code send} fails with {@link ClosedSendChannelException}.
 *       {@link #cancel()} discards the buffer and ends both sides with a
 *       {@link CancellationException}, also after a close (where kotlinx's {@code Channel} keeps
 *       the close's end).</li>
 *   <li><b>Cancellation never loses or duplicates an element.</b> Cancelling a pending
 *       {@code send} or {@code receive} (its awaitable, or the Kotlin coroutine) withdraws it if it
 *       has not matched yet: {@code cancel()} returns {@code true} and nothing was sent or
 *       received. If it had matched — the element already changed hands — {@code cancel()} returns
 *       {@code false} and the operation completes normally: the receiver gets the element, the
 *       sender learns it was delivered. (A plain kotlinx {@code receive} that is cancelled in that
 *       instant drops the element; this face does not.) A Kotlin coroutine cancelled after its
 *       operation matched returns normally and sees the cancellation at its next suspension point.
 *       So {@code cancel()} on a channel operation is a request; {@code Task.from(op)} and its
 *       {@code withTimeout} follow the same decision.</li>
 *   <li><b>Errors.</b> {@code null} elements are refused ({@link NullPointerException}); capacity
 *       below 1 for {@link #bounded(int)} throws {@link IllegalArgumentException}.</li>
 *   <li><b>Threads.</b> A Java awaitable completes on the thread of the matching party (callbacks
 *       run there: keep them short or hop with {@code Task.from(op).thenOn(context, ...)}); a
 *       virtual thread in {@code join()} is unparked. A Kotlin coroutine resumes on its own
 *       dispatcher (a receiver on the pump resumes on the pump).</li>
 * </ul>
 *
 * <h2>Implementation overview</h2>
 * Both faces share one {@code ChannelCore}: a FIFO buffer and two FIFO queues (waiting senders,
 * waiting receivers) whose nodes are the waiting operations themselves, under one lock that is
 * held for a few field writes and never while an operation completes. An operation that can
 * complete at once (an element or a receiver ready, room in the buffer) allocates nothing but the
 * Java face's completed awaitable for a received element. One that has to wait is queued as one
 * object: for Java, the returned awaitable itself (a virtual thread in {@code join()} is unparked
 * directly by the party that completes it); for Kotlin, a waiter that is also the cancellation
 * handler on the caller's job and that is kept by the channel for its next wait. Whoever takes a
 * waiter out of its queue — a matching operation, {@link #close}/{@link #cancel}, or the waiter's
 * own cancellation — completes it, exactly once; a cancellation withdraws the operation only while
 * it is still queued, which is what makes the guarantee above exact. A Kotlin caller is resumed
 * through its own dispatcher with the result as is (no prompt-cancellation check replaces it).
 *
 * <p><b>Memory effects.</b> Actions before a {@code send} happen-before actions after the
 * {@code receive} of that element.
 *
 * <p><b>Thread-safety.</b> All methods are safe from any thread.
 *
 * @param <T> the element type
 */
public final class AsyncChannel<T> {

    private static final int RENDEZVOUS = 0;
    private static final int UNLIMITED = Integer.MAX_VALUE;

    /** The algorithm, shared by both faces (the Kotlin face uses it through {@code ChannelSuspension}). */
    final ChannelCore<T> core;
    private final int capacity;

    private AsyncChannel(int capacity) {
        this.capacity = capacity;
        this.core = new ChannelCore<>(capacity);
    }

    /** A channel without a buffer: each send waits for a receive, and each receive for a send. */
    public static <T> AsyncChannel<T> rendezvous() {
        return new AsyncChannel<>(RENDEZVOUS);
    }

    /**
     * A channel buffering up to {@code capacity} elements; a send waits while it is full.
     *
     * @throws IllegalArgumentException if {@code capacity < 1} (use {@link #rendezvous()} for none)
     */
    public static <T> AsyncChannel<T> bounded(int capacity) {
        if (capacity < 1 || capacity == UNLIMITED) {
            throw new IllegalArgumentException("bounded capacity must be in [1, " + (UNLIMITED - 1) + "], got " + capacity
                    + (capacity == 0 ? " (use rendezvous())" : ""));
        }
        return new AsyncChannel<>(capacity);
    }

    /** A channel with an unlimited buffer: a send never waits (memory is the limit). */
    public static <T> AsyncChannel<T> unbounded() {
        return new AsyncChannel<>(UNLIMITED);
    }

    /**
     * Sends {@code element}, waiting while the channel is full (for a rendezvous channel: until a
     * receiver takes it). Completes once the element is in the channel or handed over; fails with
     * {@link ClosedSendChannelException} (or the close cause) if the channel is closed. Cancelling
     * the awaitable withdraws the send if it is still waiting (see the class comment).
     * Kotlin suspends with {@code send(e)} instead; this handle is for Java (a Kotlin caller that holds it
     * must cancel it itself if its coroutine is cancelled, or it may send an element nobody waits for).
     *
     * @throws NullPointerException if {@code element} is null
     */
    public Awaitable<Void> sendAsync(T element) {
        return switch (core.offer(Objects.requireNonNull(element, "element"))) {
            case ChannelCore.VALUE -> Completions.done();
            case ChannelCore.CLOSED -> Completions.failed(core.sendException());
            default -> ChannelOperation.send(core, element);
        };
    }

    /**
     * Sends {@code element} if that is possible without waiting.
     *
     * @return {@code true} if sent, {@code false} if the channel is full
     * @throws ClosedSendChannelException (or the close cause) if the channel is closed
     * @throws NullPointerException       if {@code element} is null
     */
    public boolean trySend(T element) {
        return switch (core.offer(Objects.requireNonNull(element, "element"))) {
            case ChannelCore.VALUE -> true;
            case ChannelCore.CLOSED -> throw sneaky(core.sendException());
            default -> false;
        };
    }

    /**
     * Receives the next element, waiting while the channel is empty. Fails with
     * {@link ClosedReceiveChannelException} (or the close cause) once the channel is closed and
     * drained. Cancelling the awaitable withdraws the receive if no element was handed to it yet;
     * otherwise the element is its value (see the class comment).
     * Kotlin suspends with {@code receive()} instead; this handle is for Java (a Kotlin caller that holds it
     * must cancel it itself if its coroutine is cancelled, or it may take an element for nobody).
     */
    public Awaitable<T> receiveAsync() {
        Object x = core.poll();
        if (x == ChannelCore.EMPTY) {
            return ChannelOperation.receive(core, ChannelOperation.RECEIVE);
        }
        return x == ChannelCore.ENDED ? Completions.failed(core.receiveException()) : Completions.value(element(x));
    }

    /**
     * {@link #receiveAsync()} with the end as a value: {@link Next.Value}, or {@link Next.End} once the
     * channel is closed and drained (or cancelled), or {@link Next.Failed} with the cause given to
     * {@link #close(Throwable)}. Kotlin: {@code receiveOrNull()} (or {@code next()}).
     */
    public Awaitable<Next<T>> nextAsync() {
        Object x = core.poll();
        if (x == ChannelCore.EMPTY) {
            return ChannelOperation.receive(core, ChannelOperation.NEXT);
        }
        return Completions.value(x == ChannelCore.ENDED ? core.end() : new Next.Value<>(element(x)));
    }

    /**
     * Receives an element if one is ready.
     *
     * @return the element, or {@code null} if the channel is empty
     * @throws ClosedReceiveChannelException (or the close cause) once the channel is closed and drained
     */
    public T tryReceive() {
        Object x = core.poll();
        if (x == ChannelCore.EMPTY) {
            return null;
        }
        if (x == ChannelCore.ENDED) {
            throw sneaky(core.receiveException());
        }
        return element(x);
    }

    /**
     * Closes the channel for sending; receivers drain the buffer and then see the end.
     * {@code true} if this call closed it.
     */
    public boolean close() {
        return core.close(null);
    }

    /**
     * Closes the channel for sending with {@code cause}: after the buffer is drained, receivers
     * fail with it ({@link Next.Failed}). {@code true} if this call closed it.
     */
    public boolean close(Throwable cause) {
        return core.close(Objects.requireNonNull(cause, "cause"));
    }

    /**
     * Cancels the channel: discards buffered elements and ends every pending and later send and
     * receive with a {@link CancellationException} ({@link #nextAsync()}: {@link Next.End}), also
     * after a {@link #close()} (with or without a cause): the senders a close left waiting for
     * receivers to drain them are cancelled, and later operations no longer see the close's end.
     * Returns {@code true} iff this call cancelled the channel ({@code false} for every later call;
     * a channel that was only closed is still cancelled, its buffer discarded).
     */
    public boolean cancel() {
        return core.cancel(new CancellationException("AsyncChannel cancelled"));
    }

    /** Whether {@link #close()} or {@link #cancel()} was called. */
    public boolean isClosedForSend() {
        return core.isClosedForSend();
    }

    /** Whether the channel is closed and drained: no element will ever be received. */
    public boolean isClosedForReceive() {
        return core.isClosedForReceive();
    }

    /** Whether no element is buffered now (a snapshot). */
    public boolean isEmpty() {
        return core.isEmpty();
    }

    /** The buffer size: 0 for rendezvous, {@link Integer#MAX_VALUE} for unbounded. */
    public int getCapacity() {
        return capacity;
    }

    @SuppressWarnings("unchecked")
    private static <T> T element(Object x) {
        return (T) x;
    }

    /** Throws a close cause as is (it may be a checked exception given to {@link #close(Throwable)}). */
    @SuppressWarnings("unchecked")
    private static <X extends Throwable> RuntimeException sneaky(Throwable error) throws X {
        throw (X) error;
    }

    @Override
    public String toString() {
        String kind = capacity == RENDEZVOUS ? "rendezvous" : capacity == UNLIMITED ? "unbounded" : "bounded(" + capacity + ")";
        return "AsyncChannel[" + kind + (isClosedForSend() ? ", closed" : "") + "]";
    }
}
