package dev.corobridge.bridge;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Objects;
import kotlinx.coroutines.CopyableThrowable;

/**
 * Faithful copies of a failure, one per awaiter, so that what is added to the exception an awaiter
 * receives (its hop trace, later its own suppressed exceptions) never reaches the task's original
 * exception, which every other awaiter, callback and cache shares. The same idea as kotlinx's stack
 * trace recovery, which also rethrows a copy rather than change the original.
 *
 * <p><b>Faithful</b> means a catch clause or a reader cannot tell the copy from the original: the
 * same class, the same message, the original's stack trace and suppressed exceptions, and the
 * original as its cause. A copy
 * is made only when that can be guaranteed:
 * <ol>
 *   <li>an exception that implements kotlinx's {@link CopyableThrowable} makes its own copy
 *       ({@code createCopy()}; {@code null} declines), which must be of the same class;</li>
 *   <li>otherwise the class must be public, must not be a {@link VirtualMachineError} (no
 *       allocation when memory or stack ran out), and must declare no state of its own: no
 *       non-static, non-transient field in any class between it and {@link Throwable} (a
 *       constructor could not be trusted to reproduce an error code or a file name; transient
 *       fields are caches, like the text of a helpful {@code NullPointerException});</li>
 *   <li>it is built with its own public constructor: {@code (String, Throwable)} with the message
 *       and the original, else {@code (String)}, {@code (Throwable)} or {@code ()} followed by
 *       {@code initCause(original)}; the result must have the same class, the same message and the
 *       original as cause, and must record suppressed exceptions.</li>
 * </ol>
 * Otherwise there is no copy, and the caller uses the original unchanged.
 *
 * <p><b>Cost.</b> Only failures are copied. The constructor to use is looked up once per class
 * ({@link ClassValue}); a copy then costs the constructor call (its stack walk included).
 *
 * <p><b>Thread-safety.</b> Stateless apart from the per-class cache, which is thread-safe.
 */
final class FailureCopy {

    /** How to copy instances of a class, or {@link #NONE}. */
    private static final ClassValue<Copier> COPIERS = new ClassValue<>() {
        @Override
        protected Copier computeValue(Class<?> type) {
            return copierFor(type);
        }
    };

    private static final Copier NONE = original -> null;

    private FailureCopy() {
    }

    /** A faithful copy of {@code original} (see the class comment), or {@code null} if none can be made. */
    static Throwable of(Throwable original) {
        Objects.requireNonNull(original, "original");
        Throwable copy;
        try {
            copy = original instanceof CopyableThrowable<?> copyable
                    ? (Throwable) copyable.createCopy()
                    : COPIERS.get(original.getClass()).copy(original);
        } catch (Exception | LinkageError e) {
            return null; // a constructor or createCopy() that fails: no copy, the original stays as it is
        }
        if (copy == null || copy == original || copy.getClass() != original.getClass()
                || !Objects.equals(copy.getMessage(), original.getMessage())) {
            return null;
        }
        if (!(original instanceof CopyableThrowable<?>) && copy.getCause() != original) {
            return null;
        }
        copy.setStackTrace(original.getStackTrace());
        for (Throwable suppressed : original.getSuppressed()) {
            copy.addSuppressed(suppressed); // what the original carries, the copy carries: the reader cannot tell them apart
        }
        return copy;
    }

    /** Copies one exception; returns {@code null} if this one cannot be copied after all. */
    @FunctionalInterface
    private interface Copier {
        Throwable copy(Throwable original) throws Exception;
    }

    private static Copier copierFor(Class<?> type) {
        if (!Modifier.isPublic(type.getModifiers()) || VirtualMachineError.class.isAssignableFrom(type)
                || hasStateOfItsOwn(type)) {
            return NONE;
        }
        Constructor<?> messageAndCause = publicConstructor(type, String.class, Throwable.class);
        if (messageAndCause != null) {
            return original -> (Throwable) messageAndCause.newInstance(original.getMessage(), original);
        }
        Constructor<?> message = publicConstructor(type, String.class);
        if (message != null) {
            return original -> withCause((Throwable) message.newInstance(original.getMessage()), original);
        }
        Constructor<?> cause = publicConstructor(type, Throwable.class);
        if (cause != null) {
            return original -> (Throwable) cause.newInstance(original); // kept only if the message matches
        }
        Constructor<?> none = publicConstructor(type);
        if (none != null) {
            return original -> withCause((Throwable) none.newInstance(), original);
        }
        return NONE;
    }

    /** {@code copy} with {@code cause} as its cause, or {@code null} if its constructor set one already. */
    private static Throwable withCause(Throwable copy, Throwable cause) {
        try {
            copy.initCause(cause);
            return copy;
        } catch (IllegalStateException | IllegalArgumentException e) {
            return null;
        }
    }

    private static boolean hasStateOfItsOwn(Class<?> type) {
        for (Class<?> c = type; c != null && c != Throwable.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                int m = f.getModifiers();
                if (!Modifier.isStatic(m) && !Modifier.isTransient(m)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static Constructor<?> publicConstructor(Class<?> type, Class<?>... parameters) {
        try {
            Constructor<?> c = type.getConstructor(parameters);
            return Modifier.isPublic(c.getModifiers()) ? c : null;
        } catch (NoSuchMethodException | SecurityException e) {
            return null;
        }
    }
}
