package dev.corobridge.bridge;

import kotlin.coroutines.Continuation;

/**
 * A call of a Kotlin {@code suspend} function from Java: receive the continuation and pass it on,
 * returning whatever the function returns (its value, or the "suspended" marker).
 *
 * <pre>{@code
 * // Kotlin:  suspend fun load(id: String): User
 * Task<User> user = Task.fromSuspend(ui, cont -> userService.load(id, cont));
 * }</pre>
 *
 * @param <T> the suspend function's result type
 */
@FunctionalInterface
public interface SuspendCall<T> {

    /** Calls the suspend function with {@code continuation} as its last argument and returns its result. */
    Object call(Continuation<? super T> continuation) throws Exception;
}
