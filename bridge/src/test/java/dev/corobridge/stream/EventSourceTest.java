package dev.corobridge.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.bridge.Awaitable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The Java face of event streams: next() as value / end / failure, unsubscribing by closing. */
class EventSourceTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void everySubscriberGetsTheEventsPublishedAfterItSubscribedThenTheEnd() throws Exception {
        EventSource<String> source = new EventSource<>("states");
        source.publish("before anyone listens");
        EventStream<String> a = source.subscribe();
        EventStream<String> b = source.subscribe();
        assertEquals(2, source.getSubscriberCount());
        assertTrue(source.publish("loading"));
        assertTrue(source.publish("ready"));
        assertTrue(source.close());
        assertFalse(source.publish("after close"));
        for (EventStream<String> s : List.of(a, b)) {
            List<String> got = new ArrayList<>();
            for (var e = s.nextAsync().join(WAIT); e.hasValue(); e = s.nextAsync().join(WAIT)) {
                got.add(e.value());
            }
            assertEquals(List.of("loading", "ready"), got);
            assertTrue(s.nextAsync().join(WAIT).isEnd(), "the end repeats");
        }
        assertTrue(source.subscribe().nextAsync().join(WAIT).isEnd(), "a closed source ends a new subscription at once");
    }

    @Test
    void aVirtualThreadLoopReadsUntilTheSourceCloses() throws Exception {
        EventSource<Integer> source = new EventSource<>();
        try (ExecutorService vts = Executors.newVirtualThreadPerTaskExecutor()) {
            EventStream<Integer> events = source.subscribe();
            Future<Integer> sum = vts.submit(() -> {
                int total = 0;
                try (events) {
                    for (var e = events.nextAsync().join(); e.hasValue(); e = events.nextAsync().join()) {
                        total += e.value();
                    }
                }
                return total;
            });
            for (int i = 1; i <= 100; i++) {
                source.publish(i);
            }
            source.close();
            assertEquals(5050, sum.get(WAIT.toSeconds(), TimeUnit.SECONDS));
        }
    }

    @Test
    void closingTheStreamUnsubscribesAndEndsAPendingNext() throws Exception {
        EventSource<String> source = new EventSource<>();
        EventStream<String> s = source.subscribe();
        Awaitable<Next<String>> pending = s.nextAsync();
        s.close();
        s.close(); // idempotent
        Next<String> n = pending.join(WAIT);
        assertTrue(n.isEnd());
        assertNotNull(((Next.End<String>) n).cancellation(), "ended by the subscriber: says so");
        assertEquals(0, source.getSubscriberCount(), "no token bookkeeping: closing removed it");
        assertTrue(source.publish("nobody listens"));
    }

    @Test
    void aSubscriptionToAClosedSourceEndsAtOnceAndIsNotCountedOrKept() throws Exception {
        EventSource<String> source = new EventSource<>();
        source.close();
        for (int i = 0; i < 100; i++) {
            EventStream<String> late = source.subscribe(); // never closed by its subscriber
            assertTrue(late.nextAsync().join(WAIT).isEnd());
        }
        assertEquals(0, source.getSubscriberCount(), "ended subscriptions are neither open nor kept");
    }

    @Test
    void closingOrFailingTheSourceEndsEverySubscriptionSoNoneIsCountedOrKept() throws Exception {
        for (boolean fail : new boolean[] {false, true}) {
            EventSource<String> source = new EventSource<>();
            List<EventStream<String>> streams = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                streams.add(source.subscribe()); // never closed by their subscribers
            }
            source.publish("buffered");
            assertTrue(fail ? source.fail(new IllegalStateException("broke")) : source.close());
            assertEquals(0, source.getSubscriberCount(), "ended subscriptions are neither open nor kept");
            for (EventStream<String> s : streams) {
                assertEquals("buffered", s.nextAsync().join(WAIT).value(), "what was published is still drained");
                Next<String> end = s.nextAsync().join(WAIT);
                assertEquals(fail, end instanceof Next.Failed, end.toString());
                s.close(); // closing an ended subscription changes nothing
            }
            assertEquals(0, source.getSubscriberCount());
        }
    }

    @Test
    void failingTheSourceDeliversTheFailureAfterTheBufferedEvents() throws Exception {
        EventSource<String> source = new EventSource<>();
        EventStream<String> s = source.subscribe();
        source.publish("last words");
        IllegalStateException boom = new IllegalStateException("source broke");
        source.fail(boom);
        assertEquals("last words", s.nextAsync().join(WAIT).value());
        Next<String> n = s.nextAsync().join(WAIT);
        assertInstanceOf(Next.Failed.class, n);
        assertSame(boom, root(n.errorOrNull()));
        assertThrows(IllegalStateException.class, n::hasValue, "a loop on hasValue() sees the failure");
    }

    /**
     * Closing a stream whose source had ended already (failed, closed, or a flow that failed) still
     * ends it as the close says: the buffered events are dropped and every next is the end with the
     * close's cancellation, not the source's failure after them.
     */
    @Test
    void closingAStreamWhoseSourceEndedDropsTheBufferAndEndsWithTheCancellation() throws Exception {
        EventSource<String> failed = new EventSource<>();
        EventSource<String> closed = new EventSource<>();
        List<EventStream<String>> streams = new ArrayList<>();
        for (EventSource<String> source : List.of(failed, closed)) {
            streams.add(source.subscribe());
            source.publish("buffered");
        }
        failed.fail(new java.io.IOException("boom"));
        closed.close();
        java.util.concurrent.CompletableFuture<Void> flowFailed = new java.util.concurrent.CompletableFuture<>();
        streams.add(EventStreams.from(StreamKotlinHelpers.failingAfter(10, new java.io.IOException("flow broke"), flowFailed),
                kotlinx.coroutines.Dispatchers.getDefault(), 100));
        flowFailed.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        for (EventStream<String> s : streams) {
            s.close();
            for (int i = 0; i < 2; i++) {
                Next<String> n = s.nextAsync().join(WAIT);
                assertInstanceOf(Next.End.class, n, s + ": " + n);
                assertInstanceOf(java.util.concurrent.CancellationException.class, ((Next.End<String>) n).cancellation(), s + ": " + n);
            }
        }
    }

    @Test
    void cancellingAPendingNextLosesNoEvent() throws Exception {
        EventSource<String> source = new EventSource<>();
        EventStream<String> s = source.subscribe();
        Awaitable<Next<String>> withdrawn = s.nextAsync();
        assertTrue(withdrawn.cancel());
        source.publish("kept");
        assertEquals("kept", s.nextAsync().join(WAIT).value(), "the withdrawn request took nothing");

        Awaitable<Next<String>> matched = s.nextAsync();
        source.publish("delivered");
        assertFalse(matched.cancel(), "already handed over");
        assertEquals("delivered", matched.join(WAIT).value());
    }

    @Test
    void badInputIsAClearError() {
        EventSource<String> source = new EventSource<>();
        assertThrows(NullPointerException.class, () -> source.publish(null));
        assertThrows(NullPointerException.class, () -> source.fail(null));
        assertThrows(NullPointerException.class, () -> new EventSource<>(null));
    }

    static Throwable root(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause().getClass() == t.getClass()) {
            t = t.getCause();
        }
        return t;
    }
}
