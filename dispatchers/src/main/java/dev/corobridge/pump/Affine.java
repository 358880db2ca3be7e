package dev.corobridge.pump;

import java.util.Objects;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * A value owned by a pump: readable and writable only on the pump's thread, like a widget owned
 * by a UI thread. Every access checks the calling thread and throws {@link PumpAffinityException}
 * (naming both threads and the fix) when it is not the pump's.
 *
 * <p><b>Memory effects.</b> None are needed: every access happens on the one pump thread. Hand the
 * value to other threads by copying it inside a pump task.
 *
 * @param <T> the type of the value
 */
public final class Affine<T> {

    private final MessagePump pump;
    private T value;

    private Affine(MessagePump pump, T initial) {
        this.pump = Objects.requireNonNull(pump, "pump");
        this.value = initial;
    }

    /** A holder owned by {@code pump}; may be created on any thread. */
    public static <T> Affine<T> of(MessagePump pump, T initial) {
        return new Affine<>(pump, initial);
    }

    /** Pump thread only. */
    public T get() {
        pump.checkAccess();
        return value;
    }

    /** Pump thread only. */
    public void set(T newValue) {
        pump.checkAccess();
        this.value = newValue;
    }

    /** Pump thread only: replaces the value with {@code f(value)} and returns the new value. */
    public T update(UnaryOperator<T> f) {
        pump.checkAccess();
        value = f.apply(value);
        return value;
    }

    /** Pump thread only: a derived value, e.g. a copy to hand to another thread. */
    public <R> R read(Function<? super T, ? extends R> f) {
        pump.checkAccess();
        return f.apply(value);
    }

    /** The owning pump. */
    public MessagePump getPump() {
        return pump;
    }

    @Override
    public String toString() {
        return "Affine[" + pump.getName() + "]";
    }
}
