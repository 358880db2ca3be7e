package dev.corobridge.context;

import io.micrometer.context.ThreadLocalAccessor;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A thread-local registered with Micrometer's {@code ContextRegistry} whose {@code setValue} or
 * {@code restore} throws when a test tells it to, as a misbehaving library's accessor (or
 * Micrometer's {@code ObservationThreadLocalAccessor} under {@code -ea}) does. Register it with
 * {@code ContextRegistry.getInstance().registerThreadLocalAccessor(accessor)}.
 */
public final class ThrowingAccessor implements ThreadLocalAccessor<String> {

    public final ThreadLocal<String> local = new ThreadLocal<>();
    private final String key;
    /** How many times {@code setValue()} and {@code restore()} (the calls without a value) were made. */
    public final AtomicInteger clears = new AtomicInteger();
    /** Thrown by {@code setValue(value)} while set. */
    public volatile RuntimeException failSet;
    /** {@code setValue(value)} throws for a value that starts with this, while set. */
    public volatile String refusePrefix;
    /** Thrown by both {@code restore} methods while set (an {@code Error} is allowed). */
    public volatile Throwable failRestore;

    public ThrowingAccessor(String key) {
        this.key = key;
    }

    @Override
    public Object key() {
        return key;
    }

    @Override
    public String getValue() {
        return local.get();
    }

    @Override
    public void setValue(String value) {
        RuntimeException e = failSet;
        if (e != null) {
            throw e;
        }
        String refused = refusePrefix;
        if (refused != null && value.startsWith(refused)) {
            throw new IllegalStateException("refused " + value);
        }
        local.set(value);
    }

    @Override
    public void setValue() {
        clears.incrementAndGet();
        local.remove();
    }

    @Override
    public void restore(String previousValue) {
        failRestoreIfTold();
        local.set(previousValue);
    }

    @Override
    public void restore() {
        clears.incrementAndGet();
        failRestoreIfTold();
        local.remove();
    }

    private void failRestoreIfTold() {
        Throwable e = failRestore;
        if (e instanceof Error err) {
            throw err;
        }
        if (e != null) {
            throw (RuntimeException) e;
        }
    }

    /** Stops failing and forgets the current thread's value. */
    public void stopFailing() {
        failSet = null;
        refusePrefix = null;
        failRestore = null;
        clears.set(0);
        local.remove();
    }
}
