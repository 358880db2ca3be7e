package dev.corobridge.context.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

/**
 * Installing a captured MDC with Logback (the tests' SLF4J provider): the captured snapshot
 * becomes the thread's map without a copy, the thread may still change its MDC, and the capture
 * stays as it was.
 */
class MdcValuesTest {

    @AfterEach
    void clearMdc() {
        MDC.clear();
    }

    /** A capture of {@code a=1, b=2} taken on another thread, as a restore on a worker gets it. */
    private static Object capturedElsewhere() throws Exception {
        return CompletableFuture.supplyAsync(() -> {
            MDC.put("a", "1");
            MDC.put("b", "2");
            try {
                return MdcValues.capture();
            } finally {
                MDC.clear();
            }
        }).get(10, TimeUnit.SECONDS);
    }

    @Test
    void anInstalledCaptureIsTheThreadsMapWithoutACopy() throws Exception {
        Object captured = capturedElsewhere();
        assertThat(MdcValues.install(captured)).isNull(); // this thread's MDC was empty
        assertThat(MDC.get("a")).isEqualTo("1");
        assertThat(MDC.get("b")).isEqualTo("2");
        assertThat(MDC.getCopyOfContextMap()).isEqualTo(Map.of("a", "1", "b", "2"));
        // A capture on this thread (a task started in the step) is the same map: nothing copied.
        assertThat(MdcValues.capture()).isSameAs(captured);
    }

    @Test
    void theStepMayChangeItsMdcAndTheCaptureStaysAsItWas() throws Exception {
        Object captured = capturedElsewhere();
        MdcValues.install(captured);
        MDC.put("c", "3");
        MDC.remove("a");
        assertThat(MDC.getCopyOfContextMap()).isEqualTo(Map.of("b", "2", "c", "3"));
        assertThat(MdcValues.capture()).isEqualTo(Map.of("b", "2", "c", "3")).isNotSameAs(captured);
        assertThat(captured).isEqualTo(Map.of("a", "1", "b", "2"));
        // Installed again: the capture, not what the step made of it.
        MdcValues.install(captured);
        assertThat(MDC.getCopyOfContextMap()).isEqualTo(Map.of("a", "1", "b", "2"));
    }

    @Test
    void installReturnsThePreviousMapAndReinstatePutsItBack() throws Exception {
        MDC.put("own", "x");
        Object own = MdcValues.capture();
        Object previous = MdcValues.install(capturedElsewhere());
        assertThat(previous).isSameAs(own);
        assertThat(MDC.get("own")).isNull();
        MdcValues.reinstate(previous);
        assertThat(MDC.getCopyOfContextMap()).isEqualTo(Map.of("own", "x"));
        MDC.put("own", "y"); // the thread's map is writable again, and the old capture unchanged
        assertThat(own).isEqualTo(Map.of("own", "x"));
        MdcValues.reinstate(null);
        assertThat(MDC.getCopyOfContextMap()).isNull();
        assertThat(MdcValues.capture()).isNull();
    }

    @Test
    void clearingAfterAnInstallEmptiesTheThreadOnly() throws Exception {
        Object captured = capturedElsewhere();
        MdcValues.install(captured);
        MDC.clear();
        assertThat(MDC.get("a")).isNull();
        assertThat(MdcValues.capture()).isNull();
        assertThat(captured).isEqualTo(Map.of("a", "1", "b", "2"));
    }

    @Test
    void theCaptureItselfCannotBeChanged() throws Exception {
        @SuppressWarnings("unchecked")
        Map<String, String> captured = (Map<String, String>) capturedElsewhere();
        assertThatThrownBy(() -> captured.put("z", "9")).isInstanceOf(UnsupportedOperationException.class);
    }
}
