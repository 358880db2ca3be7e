package dev.corobridge.reactor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.stream.EventStream;
import dev.corobridge.stream.EventStreams;
import dev.corobridge.stream.Flows;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import kotlinx.coroutines.Dispatchers;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;

/** Kotlin flows as Flux / Publisher for Java, with back-pressure, and publishers as flows. */
class FlowPublishersTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void aKotlinFlowIsAFluxThatRunsOnlyAsFarAsRequested() throws Exception {
        AtomicInteger emitted = new AtomicInteger();
        CountDownLatch finished = new CountDownLatch(1);
        List<Integer> got = new CopyOnWriteArrayList<>();
        CountDownLatch threeArrived = new CountDownLatch(3);
        BaseSubscriber<Integer> subscriber = new BaseSubscriber<>() {
            @Override
            protected void hookOnSubscribe(Subscription s) {
                s.request(3);
            }

            @Override
            protected void hookOnNext(Integer v) {
                got.add(v);
                threeArrived.countDown();
            }
        };
        FlowPublishers.toFlux(ReactorTestFlows.naturals(emitted, finished)).subscribe(subscriber);
        assertTrue(threeArrived.await(WAIT.toSeconds(), TimeUnit.SECONDS));
        assertEquals(List.of(1, 2, 3), got);
        assertTrue(emitted.get() <= 4, "back-pressure: emitted " + emitted.get() + " for 3 requested");
        subscriber.request(2);
        subscriber.dispose();
        assertTrue(finished.await(WAIT.toSeconds(), TimeUnit.SECONDS), "disposing cancelled the flow");
        assertTrue(got.size() <= 5);
        assertEquals(List.of(1, 2, 3, 4, 5, 6), FlowPublishers.toFlux(ReactorTestFlows.naturals(new AtomicInteger(), new CountDownLatch(1)))
                .take(6).collectList().block(WAIT));
    }

    @Test
    void publisherAndFluxRoundTripAndFailuresTravel() {
        assertEquals(List.of(1, 2, 3), Flux.from(FlowPublishers.toPublisher(ReactorTestFlows.finite(3))).collectList().block(WAIT));
        assertEquals(List.of(10, 20), FlowPublishers.toFlux(FlowPublishers.toFlow(Flux.just(10, 20)), Dispatchers.getDefault())
                .collectList().block(WAIT));
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> FlowPublishers.toFlux(ReactorTestFlows.threeThenFail()).collectList().block(WAIT));
        assertEquals("flow failed", TaskMonoTest.root(e).getMessage());
    }

    @Test
    void aPublisherIsReadAsAnEventStream() throws Exception {
        assertEquals(List.of(1, 2), drain(EventStreams.from(FlowPublishers.toFlow(Flux.just(1, 2)))));
    }

    @Test
    void aJavaProducedFlowIsAFluxWithItsFailure() {
        kotlinx.coroutines.flow.Flow<String> failing = Flows.create(emitter -> {
            emitter.tryEmit("only");
            emitter.fail(new IllegalArgumentException("producer failed"));
        });
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> FlowPublishers.toFlux(failing).collectList().block(WAIT));
        assertEquals("producer failed", TaskMonoTest.root(e).getMessage());
        assertEquals(List.of(1, 2, 3), FlowPublishers.toFlux(Flows.<Integer>create(Integer.MAX_VALUE, emitter -> {
            for (int i = 1; i <= 3; i++) {
                assertTrue(emitter.tryEmit(i));
            }
            emitter.complete();
        })).collectList().block(WAIT));
    }

    @Test
    void nullArgumentsAreRefusedByName() {
        assertEquals("flow", assertThrows(NullPointerException.class, () -> FlowPublishers.toFlux(null)).getMessage());
        assertEquals("dispatcher", assertThrows(NullPointerException.class,
                () -> FlowPublishers.toFlux(ReactorTestFlows.finite(1), null)).getMessage());
        assertEquals("flow", assertThrows(NullPointerException.class, () -> FlowPublishers.toPublisher(null)).getMessage());
        assertEquals("publisher", assertThrows(NullPointerException.class, () -> FlowPublishers.toFlow(null)).getMessage());
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
