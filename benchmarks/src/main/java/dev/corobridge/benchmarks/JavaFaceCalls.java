package dev.corobridge.benchmarks;

import dev.corobridge.bridge.Awaitable;
import dev.corobridge.stream.Next;
import dev.corobridge.sync.AsyncChannel;
import dev.corobridge.sync.AsyncMutex;

/**
 * The Java faces of the sync primitives, callable from the Kotlin load code (Kotlin itself sees
 * the suspending faces under these names), so that the Java face can also be measured with
 * coroutines as the waiters — the same scheduler as the kotlinx baseline.
 */
public final class JavaFaceCalls {

    private JavaFaceCalls() {
    }

    public static <T> Awaitable<Void> send(AsyncChannel<T> channel, T element) {
        return channel.send(element);
    }

    public static <T> Awaitable<Next<T>> next(AsyncChannel<T> channel) {
        return channel.next();
    }

    public static <T> Awaitable<T> receive(AsyncChannel<T> channel) {
        return channel.receive();
    }

    public static Awaitable<Void> lock(AsyncMutex mutex) {
        return mutex.lock();
    }
}
