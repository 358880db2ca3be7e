package dev.corobridge.stream;

import dev.corobridge.bridge.Awaitable;

/**
 * How Java code produces a Kotlin {@code Flow} (see {@link Flows#create}): emit values into the
 * flow's buffer, then complete or fail it. Backed by the channel of a kotlinx
 * {@code callbackFlow}, so emission has back-pressure: {@link #emitAsync} completes only when the
 * collector has room.
 *
 * <pre>{@code
 * Flow<Line> lines = Flows.create(16, emitter -> Task.startVirtual(() -> {
 *     try (var reader = open(file)) {
 *         for (String l; (l = reader.readLine()) != null && !emitter.isClosed(); ) {
 *             emitter.emitAsync(new Line(l)).join();   // waits while the collector is behind
 *         }
 *         emitter.complete();
 *     } catch (Exception e) {
 *         emitter.fail(e);
 *     }
 *     return null;
 * }));
 * }</pre>
 *
 * <p><b>Thread-safety.</b> All methods are safe from any thread; values emitted from one thread
 * arrive in order.
 *
 * @param <T> the value type
 */
public interface FlowEmitter<T> {

    /**
     * Emits {@code value}: completes when it is in the buffer or handed to the collector; fails
     * (cancelled) if the collection has ended, and with an {@link IllegalStateException} if this
     * emitter was already completed or failed (emitting after the end is the producer's mistake).
     * Cancelling the awaitable withdraws the emission if it was still waiting for room; otherwise
     * the value was delivered and {@code cancel()} returns {@code false}.
     *
     * @throws NullPointerException if {@code value} is null
     */
    Awaitable<Void> emitAsync(T value);

    /**
     * Emits {@code value} if there is room now; {@code false} if the buffer is full or the flow has ended.
     *
     * @throws NullPointerException if {@code value} is null
     */
    boolean tryEmit(T value);

    /** Completes the flow after the values emitted so far. */
    void complete();

    /** Fails the flow with {@code error} after the values emitted so far. */
    void fail(Throwable error);

    /** Whether the flow can take no more values: completed, failed, or the collector stopped. */
    boolean isClosed();

    /**
     * Runs {@code action} once when this collection of the flow ends, however it ends (completed,
     * failed, or the collector cancelled): release the source here. Runs at once if it has ended.
     */
    void onClose(Runnable action);
}
