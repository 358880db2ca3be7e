package dev.corobridge.bridge;

import kotlin.coroutines.Continuation;

/**
 * A call of a Kotlin {@code suspend} function from Java: receive the continuation and pass it on,
 * returning whatever the function returns (its value, or the "suspended" marker).
 *
 * <pre>{@code
 * // Kotlin:  suspend fun current(): User;  suspend fun load(id: String): User
 * Task<User> me = Task.startSuspend(ui, userService::current);               // no arguments: a reference
 * Task<User> user = Task.startSuspend(ui, cont -> userService.load(id, cont)); // arguments: pass cont on
 * }</pre>
 *
 * <p>A Kotlin {@code suspend fun f(): R} is, to Java, {@code Object f(Continuation<? super R>)}.
 * {@link #call} takes a {@code Continuation<T>} (not {@code <? super T>}) on purpose: then
 * {@code obj::f} infers {@code T = R} without a witness, whereas a wildcard here would make javac
 * capture it and reject the reference ({@code Continuation<CAP#1> cannot be converted to
 * Continuation<? super R>}).
 *
 * @param <T> the suspend function's result type
 */
@FunctionalInterface
public interface SuspendCall<T> {

    /** Calls the suspend function with {@code continuation} as its last argument and returns its result. */
    Object call(Continuation<T> continuation) throws Exception;
}
