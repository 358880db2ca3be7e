package dev.corobridge.reactor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.corobridge.bridge.Task;
import io.micrometer.context.ContextRegistry;
import io.micrometer.context.ThreadLocalAccessor;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

/**
 * A subscriber's values set on a thread, when one registered accessor refuses its value after
 * another was set: the one already set is put back, so the thread is left with its own values
 * (Micrometer's {@code ContextSnapshotFactory.setThreadLocalsFrom} leaves it set), and a put-back
 * that fails still puts back every other value.
 */
class SubscriberContextRefusalTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String REGION_KEY = "test.refusal.region";
    private static final String GATE_KEY = "test.refusal.gate";
    private static final ThreadLocal<String> REGION = new ThreadLocal<>();
    private static final Gate GATE = new Gate();

    @BeforeAll
    static void register() {
        ContextRegistry.getInstance().registerThreadLocalAccessor(REGION_KEY, REGION); // set before the gate
        ContextRegistry.getInstance().registerThreadLocalAccessor(GATE);
    }

    @AfterAll
    static void unregister() {
        ContextRegistry.getInstance().removeThreadLocalAccessor(REGION_KEY);
        ContextRegistry.getInstance().removeThreadLocalAccessor(GATE_KEY);
    }

    @AfterEach
    void clean() {
        REGION.remove();
        Gate.VALUE.remove();
        GATE.failRestores.set(0);
    }

    @Test
    void aRefusedValueLeavesNoEarlierValueBehind() {
        AtomicInteger ran = new AtomicInteger();
        IllegalStateException refused = assertThrows(IllegalStateException.class, () -> ReactorContexts.with(
                Context.of(REGION_KEY, "eu", GATE_KEY, Gate.REFUSED), ran::incrementAndGet));
        assertEquals("refused", refused.getMessage());
        assertEquals(0, ran.get(), "the body does not run");
        assertNull(REGION.get(), "the region set before the refusal is put back");

        REGION.set("own");
        assertThrows(IllegalStateException.class, () -> ReactorContexts.capture(Context.of(REGION_KEY, "eu", GATE_KEY, Gate.REFUSED)));
        assertEquals("own", REGION.get(), "the thread's own region is back");
    }

    @Test
    void aDeferredTaskWhoseSubscriberContextIsRefusedFailsAndLeavesNothing() {
        AtomicInteger created = new AtomicInteger();
        Mono<String> m = TaskMono.defer(() -> {
            created.incrementAndGet();
            return Task.completed("never");
        });
        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> m.contextWrite(Context.of(REGION_KEY, "eu", GATE_KEY, Gate.REFUSED)).block(WAIT));
        assertEquals("refused", refused.getMessage());
        assertEquals(0, created.get());
        assertNull(REGION.get());
    }

    @Test
    void aFailedPutBackStillPutsBackTheOthersAndIsThrownAfterTheBody() {
        GATE.failRestores.set(1);
        AtomicInteger ran = new AtomicInteger();
        IllegalStateException failed = assertThrows(IllegalStateException.class, () -> ReactorContexts.with(
                Context.of(REGION_KEY, "eu", GATE_KEY, "open"), () -> {
                    assertEquals("eu", REGION.get());
                    assertEquals("open", Gate.VALUE.get());
                    return ran.incrementAndGet();
                }));
        assertEquals("put-back refused", failed.getMessage());
        assertEquals(1, ran.get());
        assertNull(REGION.get(), "the region is put back although the gate's put-back failed");
    }

    /** A registered thread-local that refuses {@link #REFUSED}, and fails its next put-backs on demand. */
    private static final class Gate implements ThreadLocalAccessor<String> {
        static final String REFUSED = "refused";
        static final ThreadLocal<String> VALUE = new ThreadLocal<>();
        final AtomicInteger failRestores = new AtomicInteger();

        @Override
        public Object key() {
            return GATE_KEY;
        }

        @Override
        public String getValue() {
            return VALUE.get();
        }

        @Override
        public void setValue(String value) {
            if (REFUSED.equals(value)) {
                throw new IllegalStateException("refused");
            }
            VALUE.set(value);
        }

        @Override
        public void setValue() {
            VALUE.remove();
        }

        @Override
        public void restore() {
            VALUE.remove();
            if (failRestores.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                throw new IllegalStateException("put-back refused");
            }
        }
    }
}
