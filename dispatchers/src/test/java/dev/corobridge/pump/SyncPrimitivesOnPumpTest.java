package dev.corobridge.pump;

import static dev.corobridge.pump.PumpTestSupport.WAIT;
import static dev.corobridge.pump.PumpTestSupport.onPump;
import static dev.corobridge.pump.PumpTestSupport.stop;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.bridge.Awaitable;
import dev.corobridge.bridge.Promise;
import dev.corobridge.bridge.Task;
import dev.corobridge.stream.EventSource;
import dev.corobridge.stream.EventStream;
import dev.corobridge.stream.Next;
import dev.corobridge.sync.AsyncChannel;
import dev.corobridge.sync.AsyncCondition;
import dev.corobridge.sync.AsyncEvent;
import dev.corobridge.sync.AsyncLatch;
import dev.corobridge.sync.AsyncMutex;
import dev.corobridge.sync.AsyncSemaphore;
import dev.corobridge.sync.WaitGroup;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The Java faces of the sync primitives and event streams used from the pump thread: nothing ever
 * blocks the pump (a wait returns a pending awaitable at once and the pump keeps dispatching), a
 * blocking {@code await()} there fails naming the fix, and continuations composed with
 * {@code Task.from(wait).thenOn(ui, ...)} run on the pump whichever thread completed the wait.
 */
class SyncPrimitivesOnPumpTest {

    private final MessagePump ui = MessagePump.start("sync-ui");

    @AfterEach
    void tearDown() throws Exception {
        stop(ui);
    }

    /**
     * Starts {@code wait} on the pump, proves the pump is still free while it is pending, releases
     * it from a virtual thread with {@code release}, and returns where the continuation ran.
     */
    private <T> String waitOnPumpReleasedElsewhere(Supplier<Awaitable<T>> wait, Callable<?> release) throws Exception {
        Task<String> continuation = onPump(ui, () -> {
            Awaitable<T> w = wait.get(); // returns at once: pending
            assertFalse(w.isDone(), "the wait must really be pending for this test");
            return Task.from(w).thenOn(ui, v -> {
                ui.checkAccess();
                return "continued on " + ui.getName();
            });
        });
        assertEquals("still dispatching", onPump(ui, () -> "still dispatching"), "the pump did not block");
        Task.startVirtual(release).join(WAIT);
        return continuation.join(WAIT);
    }

    @Test
    void mutexSemaphoreEventLatchWaitGroupAndChannelWaitsContinueOnThePump() throws Exception {
        AsyncMutex mutex = new AsyncMutex();
        mutex.tryLock();
        assertEquals("continued on sync-ui", waitOnPumpReleasedElsewhere(mutex::lockAsync, () -> {
            mutex.unlock();
            return null;
        }));
        assertTrue(mutex.isLocked(), "the pump's continuation holds it now");
        mutex.unlock();

        AsyncSemaphore permits = new AsyncSemaphore(1, 1);
        assertEquals("continued on sync-ui", waitOnPumpReleasedElsewhere(permits::acquireAsync, () -> {
            permits.release();
            return null;
        }));

        AsyncEvent<String> event = new AsyncEvent<>();
        assertEquals("continued on sync-ui", waitOnPumpReleasedElsewhere(event::awaitAsync, () -> event.set("go")));

        AsyncLatch latch = new AsyncLatch(2);
        assertEquals("continued on sync-ui", waitOnPumpReleasedElsewhere(latch::awaitAsync, () -> {
            latch.countDown();
            latch.countDown();
            return null;
        }));

        WaitGroup group = new WaitGroup();
        group.add(1);
        assertEquals("continued on sync-ui", waitOnPumpReleasedElsewhere(group::awaitAsync, () -> {
            group.done();
            return null;
        }));

        AsyncChannel<String> channel = AsyncChannel.rendezvous();
        assertEquals("continued on sync-ui", waitOnPumpReleasedElsewhere(channel::receiveAsync, () -> channel.sendAsync("x").join()));
        assertEquals("continued on sync-ui", waitOnPumpReleasedElsewhere(() -> channel.sendAsync("y"), () -> channel.receiveAsync().join()));
    }

    @Test
    void aConditionWaitStartedOnThePumpReleasesTheMutexAndContinuesThereHoldingIt() throws Exception {
        AsyncMutex mutex = new AsyncMutex();
        AsyncCondition ready = new AsyncCondition(mutex);
        boolean[] flag = {false};
        Task<String> continuation = onPump(ui, () -> {
            mutex.tryLock();
            return Task.from(ready.awaitUntilAsync(() -> flag[0])).thenOn(ui, v -> {
                try {
                    return "flag=" + flag[0] + " locked=" + mutex.isLocked() + " on pump=" + ui.isCurrentThread();
                } finally {
                    mutex.unlock();
                }
            });
        });
        Task.startVirtual(() -> {
            mutex.lockAsync().join();
            try {
                flag[0] = true;
                ready.signal();
            } finally {
                mutex.unlock();
            }
            return null;
        }).join(WAIT);
        assertEquals("flag=true locked=true on pump=true", continuation.join(WAIT));
        assertFalse(mutex.isLocked());
    }

    @Test
    void aBlockingAwaitOfAPendingWaitOnThePumpFailsNamingTheFix() throws Exception {
        AsyncChannel<String> channel = AsyncChannel.rendezvous();
        String message = onPump(ui, () -> {
            Awaitable<String> r = channel.receiveAsync();
            try {
                r.join();
                return "blocked?!";
            } catch (IllegalStateException e) {
                r.cancel();
                return e.getMessage();
            }
        });
        assertTrue(message.contains("'sync-ui'") && message.contains("thenOn"), message);
        assertFalse(channel.trySend("x"), "the abandoned receive was withdrawn");
    }

    @Test
    void aPumpSideConsumerLoopReadsAChannelFedByVirtualThreads() throws Exception {
        AsyncChannel<Integer> channel = AsyncChannel.bounded(4);
        Promise<List<Integer>> consumed = new Promise<>();
        List<Integer> got = new ArrayList<>(); // touched only on the pump
        ui.execute(() -> readNext(channel, got, consumed));
        Future<?> producer = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor().submit(() -> {
            for (int i = 0; i < 200; i++) {
                channel.sendAsync(i).join();
            }
            channel.close();
            return null;
        });
        producer.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            expected.add(i);
        }
        assertEquals(expected, consumed.join(WAIT));
    }

    /** One step of a callback-style loop on the pump: handle one element, then ask for the next. */
    private void readNext(AsyncChannel<Integer> channel, List<Integer> got, Promise<List<Integer>> done) {
        Task.from(channel.nextAsync()).thenOn(ui, (Next<Integer> n) -> {
            ui.checkAccess();
            if (n.hasValue()) {
                got.add(n.value());
                readNext(channel, got, done);
            } else {
                done.complete(got);
            }
            return null;
        });
    }

    @Test
    void thePumpPublishesItsStateChangesAsAnEventStream() throws Exception {
        EventSource<String> states = new EventSource<>("pump states");
        EventStream<String> subscription = states.subscribe();
        Task<List<String>> reader = Task.startVirtual(() -> {
            List<String> seen = new ArrayList<>();
            try (subscription) {
                for (var e = subscription.nextAsync().join(); e.hasValue(); e = subscription.nextAsync().join()) {
                    seen.add(e.value());
                }
            }
            return seen;
        });
        for (String s : List.of("starting", "ready", "busy", "ready")) {
            ui.execute(() -> {
                ui.checkAccess();
                states.publish(s); // never waits: fine on the pump
            });
        }
        ui.execute(states::close); // two-phase style: tell subscribers "no more events" while running
        assertEquals(List.of("starting", "ready", "busy", "ready"), reader.join(WAIT));
        assertEquals(0, states.getSubscriberCount(), "the reader unsubscribed by closing its stream");
    }
}
