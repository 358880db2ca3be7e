package dev.corobridge.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.bridge.Task;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import kotlinx.coroutines.Dispatchers;
import org.junit.jupiter.api.Test;

/** Kotlin flows as EventStreams for Java, with back-pressure; Java-produced flows. (Flux / Publisher: corobridge-reactor.) */
class FlowsTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void aFlowIsAnEventStreamWithBackPressureAndClosingCancelsIt() throws Exception {
        AtomicInteger emitted = new AtomicInteger();
        CountDownLatch finished = new CountDownLatch(1);
        try (EventStream<Integer> s = EventStreams.from(StreamKotlinHelpers.naturals(emitted, finished))) {
            for (int i = 1; i <= 5; i++) {
                assertEquals(i, s.nextAsync().join(WAIT).value());
            }
            assertTrue(emitted.get() <= 6, "the flow ran at most one ahead: " + emitted.get());
        }
        assertTrue(finished.await(WAIT.toSeconds(), TimeUnit.SECONDS), "closing the stream cancelled the flow");

        List<String> got = new ArrayList<>();
        EventStream<String> failing = EventStreams.from(StreamKotlinHelpers.threeThenFail());
        Next<String> n;
        while ((n = failing.nextAsync().join(WAIT)) instanceof Next.Value<String> v) {
            got.add(v.value());
        }
        assertEquals(List.of("a", "b", "c"), got);
        assertInstanceOf(Next.Failed.class, n);
        assertTrue(EventStreams.from(StreamKotlinHelpers.finite(0)).nextAsync().join(WAIT).isEnd());
        assertThrows(IllegalArgumentException.class, () -> EventStreams.from(StreamKotlinHelpers.finite(1), Dispatchers.getDefault(), -1));
    }

    @Test
    void javaProducesAFlowThroughAnEmitterWithBackPressure() throws Exception {
        AtomicInteger produced = new AtomicInteger();
        CountDownLatch released = new CountDownLatch(1);
        kotlinx.coroutines.flow.Flow<Integer> flow = Flows.create(2, emitter -> {
            emitter.onClose(released::countDown);
            Task.startVirtual(() -> {
                for (int i = 1; i <= 100 && !emitter.isClosed(); i++) {
                    emitter.emitAsync(i).join();
                    produced.incrementAndGet();
                }
                emitter.complete();
                return null;
            });
        });
        try (EventStream<Integer> s = EventStreams.from(flow)) {
            assertEquals(1, s.nextAsync().join(WAIT).value());
            assertEquals(2, s.nextAsync().join(WAIT).value());
            assertTrue(produced.get() <= 2 + 2 + 2, "bounded by the buffers: produced " + produced.get());
        }
        assertTrue(released.await(WAIT.toSeconds(), TimeUnit.SECONDS), "onClose ran when the collector stopped");

        kotlinx.coroutines.flow.Flow<String> failing = Flows.create(emitter -> {
            emitter.tryEmit("only");
            emitter.fail(new IllegalArgumentException("producer failed"));
        });
        Next<String> last;
        try (EventStream<String> s = EventStreams.from(failing)) {
            do {
                last = s.nextAsync().join(WAIT);
            } while (last instanceof Next.Value);
        }
        Next.Failed<?> end = assertInstanceOf(Next.Failed.class, last);
        assertEquals("producer failed", EventSourceTest.root(end.error()).getMessage());
        assertEquals(List.of(1, 2, 3), drain(EventStreams.from(Flows.<Integer>create(Integer.MAX_VALUE, emitter -> {
            for (int i = 1; i <= 3; i++) {
                assertTrue(emitter.tryEmit(i));
            }
            emitter.complete();
        }))));
        assertThrows(IllegalArgumentException.class, () -> Flows.create(-1, emitter -> { }));
    }

    /**
     * A producer that throws fails the flow, and its emitter's close actions run, those registered
     * before the throw and any registered after (at once): the collection has ended. None ran, so
     * what they were to release stayed held.
     */
    @Test
    void aProducerThatThrowsStillRunsItsCloseActions() throws Exception {
        CountDownLatch before = new CountDownLatch(1);
        java.util.concurrent.atomic.AtomicReference<FlowEmitter<Integer>> emitter = new java.util.concurrent.atomic.AtomicReference<>();
        IllegalStateException boom = new IllegalStateException("the producer failed");
        kotlinx.coroutines.flow.Flow<Integer> flow = Flows.create(e -> {
            emitter.set(e);
            e.onClose(before::countDown);
            throw boom;
        });
        try (EventStream<Integer> s = EventStreams.from(flow)) {
            Next<Integer> n = s.nextAsync().join(WAIT);
            assertInstanceOf(Next.Failed.class, n);
        }
        assertTrue(before.await(30, TimeUnit.SECONDS), "the close action registered before the throw ran");
        assertTrue(emitter.get().isClosed());
        CountDownLatch after = new CountDownLatch(1);
        emitter.get().onClose(after::countDown);
        assertEquals(0, after.getCount(), "registered after the end: run at once");
    }

    /**
     * Emitting after the producer's own {@code complete()} or {@code fail()} is the producer's
     * mistake, and says so with an {@code IllegalStateException}, whichever way it ended the flow;
     * emitting after the collector stopped is a cancellation. Before, the first failed with kotlinx's
     * {@code ClosedSendChannelException} and the second with the producer's own error.
     */
    @Test
    void emittingAfterTheProducerEndedTheFlowIsAnIllegalStateAndAfterTheCollectorStoppedACancellation() throws Exception {
        for (boolean fail : new boolean[] {false, true}) {
            // The producer goes on after it ended the flow, so the stream can end before the
            // producer has recorded its late attempts: the test waits for the producer's end.
            List<Throwable> late = new java.util.concurrent.CopyOnWriteArrayList<>();
            List<Boolean> tried = new java.util.concurrent.CopyOnWriteArrayList<>();
            CountDownLatch producerDone = new CountDownLatch(1);
            kotlinx.coroutines.flow.Flow<String> flow = Flows.create(4, emitter -> {
                try {
                    assertTrue(emitter.tryEmit("one"));
                    if (fail) {
                        emitter.fail(new IllegalArgumentException("producer failed"));
                    } else {
                        emitter.complete();
                    }
                    assertTrue(emitter.isClosed());
                    late.add(assertThrows(Throwable.class, () -> emitter.emitAsync("late").join(WAIT)));
                    tried.add(emitter.tryEmit("late"));
                } finally {
                    producerDone.countDown();
                }
            });
            List<Next<String>> got = new ArrayList<>();
            try (EventStream<String> s = EventStreams.from(flow)) {
                Next<String> n;
                do {
                    n = s.nextAsync().join(WAIT);
                    got.add(n);
                } while (n instanceof Next.Value);
            }
            assertEquals("one", got.get(0).value());
            assertEquals(2, got.size(), "nothing after the end: " + got);
            assertEquals(fail, got.get(1) instanceof Next.Failed, got.toString());
            assertTrue(producerDone.await(30, TimeUnit.SECONDS), "the producer returned");
            assertInstanceOf(IllegalStateException.class, late.get(0), String.valueOf(late.get(0)));
            assertTrue(late.get(0).getMessage().contains(fail ? "fail()" : "complete()"), late.get(0).getMessage());
            assertEquals(List.of(false), tried);
        }

        CountDownLatch stopped = new CountDownLatch(1);
        java.util.concurrent.atomic.AtomicReference<FlowEmitter<Integer>> emitter = new java.util.concurrent.atomic.AtomicReference<>();
        kotlinx.coroutines.flow.Flow<Integer> endless = Flows.create(1, e -> {
            emitter.set(e);
            e.onClose(stopped::countDown);
            e.tryEmit(1);
        });
        try (EventStream<Integer> s = EventStreams.from(endless)) {
            assertEquals(1, s.nextAsync().join(WAIT).value());
        }
        assertTrue(stopped.await(30, TimeUnit.SECONDS));
        Throwable afterStop = assertThrows(Throwable.class, () -> emitter.get().emitAsync(2).join(WAIT));
        assertInstanceOf(java.util.concurrent.CancellationException.class, afterStop, String.valueOf(afterStop));
    }

    @Test
    void anEmitterRefusesNullWithANullPointerException() throws Exception {
        List<Throwable> refusals = new ArrayList<>();
        kotlinx.coroutines.flow.Flow<String> flow = Flows.create(1, emitter -> {
            refusals.add(assertThrows(NullPointerException.class, () -> emitter.emitAsync(null)));
            refusals.add(assertThrows(NullPointerException.class, () -> emitter.tryEmit(null)));
            assertTrue(emitter.tryEmit("after"));
            emitter.complete();
        });
        assertEquals(List.of("after"), drain(EventStreams.from(flow)));
        assertEquals(2, refusals.size());
    }

    private static <T> List<T> drain(EventStream<T> s) throws Exception {
        List<T> out = new ArrayList<>();
        try (s) {
            for (var e = s.nextAsync().join(WAIT); e.hasValue(); e = s.nextAsync().join(WAIT)) {
                out.add(e.value());
            }
        }
        return out;
    }
}
