package dev.corobridge.sync;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.corobridge.bridge.Awaitable;
import dev.corobridge.bridge.Outcome;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Bounded waits for the sync tests: a bug fails the test clearly instead of hanging the build. */
final class SyncTestSupport {

    static final Duration WAIT = Duration.ofSeconds(30);

    private SyncTestSupport() {
    }

    /** The outcome of {@code a}, waiting for it (bounded) without throwing what it ends with. */
    static <T> Outcome<T> outcomeOf(Awaitable<T> a) throws InterruptedException {
        Outcome<T> o = a.outcomeOrNull();
        if (o != null) {
            return o;
        }
        CountDownLatch done = new CountDownLatch(1);
        a.onComplete(x -> done.countDown());
        if (!done.await(WAIT.toSeconds(), TimeUnit.SECONDS)) {
            throw new AssertionError("not complete after " + WAIT + ": " + a);
        }
        o = a.outcomeOrNull();
        assertNotNull(o);
        return o;
    }

    /** The value of {@code a}, waiting for it (bounded). */
    static <T> T valueOf(Awaitable<T> a) throws Exception {
        return a.join(WAIT);
    }

    /** The root of a chain of kotlinx debug-mode copies (which keep the original as cause). */
    static Throwable original(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause().getClass() == t.getClass()) {
            t = t.getCause();
        }
        return t;
    }
}
