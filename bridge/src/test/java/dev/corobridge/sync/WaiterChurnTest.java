package dev.corobridge.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.bridge.Awaitable;
import dev.corobridge.bridge.Promise;
import dev.corobridge.bridge.internal.RetainedCallbacks;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Cancelled waiters of an event, a latch and a wait group do not pile up on the shared promise,
 * also when each gives up only after the next one registered (so that it lies under a live one).
 */
class WaiterChurnTest {

    private static final int WAITERS = 5_000;
    /** What a shared promise with one live waiter may keep at most (cancelled waiters included). */
    private static final int BOUND = 100;

    @Test
    void cancelledEventWaitersDoNotPileUpOnAnUnsetEvent() throws Exception {
        AsyncEvent<String> event = new AsyncEvent<>();
        Awaitable<String> last = churn(event::awaitAsync, event.state);
        event.set("v");
        assertEquals("v", last.join(SyncTestSupport.WAIT), "the waiter that stayed is woken");
    }

    @Test
    void cancelledLatchWaitersDoNotPileUpOnAClosedLatch() throws Exception {
        AsyncLatch latch = new AsyncLatch(1);
        Awaitable<Void> last = churn(latch::awaitAsync, latch.open);
        latch.countDown();
        last.join(SyncTestSupport.WAIT);
        assertTrue(last.isDone());
    }

    @Test
    void cancelledWaitGroupWaitersDoNotPileUpOnARound() throws Exception {
        WaitGroup group = new WaitGroup();
        group.add(1);
        Awaitable<Void> last = churn(group::awaitAsync, group.round.get().zero());
        group.done();
        last.join(SyncTestSupport.WAIT);
        assertTrue(last.isDone());
    }

    /**
     * {@value #WAITERS} waiters, each cancelled after the next one registered; returns the last
     * one, still waiting, after checking what {@code shared} keeps.
     */
    private static <T> Awaitable<T> churn(Supplier<Awaitable<T>> newWaiter, Promise<?> shared) {
        Awaitable<T> previous = newWaiter.get();
        int most = 0;
        for (int i = 0; i < WAITERS; i++) {
            Awaitable<T> next = newWaiter.get();
            assertTrue(previous.cancel(), "a pending waiter is withdrawn");
            previous = next;
            most = Math.max(most, RetainedCallbacks.of(shared));
        }
        assertTrue(most < BOUND, "the shared promise kept " + most + " callbacks for one live waiter after "
                + WAITERS + " cancelled ones");
        return previous;
    }
}
