package dev.corobridge.dispatchers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.pump.MessagePump;
import dev.corobridge.ring.RingPool;
import dev.corobridge.ring.RingPoolConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * When {@code awaitTermination} returns because the pump or pool terminated, the termination future
 * handed out before is complete: a caller may read the outcome from the future it holds at once
 * (RingPoolTerminationTest does: awaitTermination false, then the future's exception).
 *
 * <p>The futures handed out are copies of an internal one, completed by the terminating thread right
 * after it has woken the waiters; a waiter that ran first saw its copy still incomplete. The window is
 * a few instructions wide, so this is a stress test: many terminations, each checked at once.
 */
class TerminationVisibleTest {

    @Test
    void aPumpsTerminationFutureIsCompleteWhenAwaitTerminationReturns() throws Exception {
        List<Integer> incomplete = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            MessagePump pump = MessagePump.start("termination-visible");
            CompletableFuture<?> mine = pump.shutdown();
            assertTrue(pump.awaitTermination(Duration.ofMinutes(1)));
            if (!mine.isDone() && incomplete.size() < 5) {
                incomplete.add(i);
            }
        }
        assertEquals(List.of(), incomplete, "rounds where awaitTermination returned before the future handed out was complete");
    }

    @Test
    void aPoolsTerminationFutureIsCompleteWhenAwaitTerminationReturns() throws Exception {
        List<Integer> incomplete = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            RingPool pool = RingPool.start(RingPoolConfig.builder().name("termination-visible").rings(1).build());
            CompletableFuture<?> mine = pool.shutdown(Duration.ZERO);
            assertTrue(pool.awaitTermination(Duration.ofMinutes(1)));
            if (!mine.isDone() && incomplete.size() < 5) {
                incomplete.add(i);
            }
        }
        assertEquals(List.of(), incomplete, "rounds where awaitTermination returned before the future handed out was complete");
    }
}
