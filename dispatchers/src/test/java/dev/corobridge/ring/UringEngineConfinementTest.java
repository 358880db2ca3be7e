package dev.corobridge.ring;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.IoEventLoop;
import java.lang.reflect.Proxy;
import org.junit.jupiter.api.Test;

/**
 * The io_uring engine's state (slots, the waiting queue, the SQE ring) belongs to its loop thread,
 * and each method that touches it asserts so: a completion handled off the loop fails at once
 * instead of corrupting the slots. Surefire runs tests with assertions on (its default).
 */
class UringEngineConfinementTest {

    /** A loop that is never the calling thread; anything else asked of it is a test failure. */
    private static IoEventLoop elsewhere() {
        return (IoEventLoop) Proxy.newProxyInstance(IoEventLoop.class.getClassLoader(), new Class<?>[] {IoEventLoop.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "inEventLoop" -> false;
                    case "toString" -> "a loop on another thread";
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    @Test
    void assertionsAreOnInTests() {
        boolean on = false;
        assert on = true;
        assertTrue(on, "surefire must run tests with -ea");
    }

    @Test
    void aCompletionHandledOffTheLoopThreadFailsTheAssertion() {
        UringEngine engine = new UringEngine(elsewhere(), new RingMetricsRecorder());
        AssertionError e = assertThrows(AssertionError.class, () -> engine.handle(null, null));
        assertTrue(e.getMessage().contains("off the ring's loop thread"), e.getMessage());
    }
}
