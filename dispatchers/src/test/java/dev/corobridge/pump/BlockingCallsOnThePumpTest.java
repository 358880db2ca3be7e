package dev.corobridge.pump;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.corobridge.bridge.Promise;
import dev.corobridge.bridge.Task;
import dev.corobridge.bridge.TaskScope;
import dev.corobridge.ring.RingPool;
import dev.corobridge.ring.RingPoolConfig;

/**
 * The pump's thread never blocks in a wait for other work, whichever object the wait belongs to:
 * closing a ring pool or another pump there starts their shutdown and returns (as a ring pool's
 * close does on its own ring thread), and their {@code awaitTermination} is refused, as
 * {@code join()} is, naming the call. They blocked the pump (for up to the grace period and 15 s).
 * {@code TaskScope.close()} cancels the children and is refused under its own name (it named
 * {@code join()}).
 */
class BlockingCallsOnThePumpTest {

    @Test
    void closingOthersOnThePumpStartsTheirShutdownAndNeverWaits() throws Exception {
        MessagePump ui = MessagePump.start("blocking-ui");
        RingPool pool = RingPool.start(RingPoolConfig.builder().name("blocking-pool").rings(1)
                .shutdownGracePeriod(Duration.ofSeconds(30)).build());
        MessagePump other = MessagePump.start(PumpConfig.builder("blocking-other").shutdownGracePeriod(Duration.ofSeconds(30)).build());
        try {
            Promise<Void> never = new Promise<>();
            // Both stay busy for 4 s, so that their shutdowns cannot end before the calls below.
            pool.next().execute(() -> java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(4)));
            other.execute(() -> java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(4)));
            String refusals = Task.start(ui, () -> {
                long start = System.nanoTime();
                pool.close();
                other.close();
                long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                assertTrue(tookMillis < 2_000, "close() on the pump waited " + tookMillis + " ms");
                assertTrue(pool.isShutdown());
                assertTrue(other.isShutdown());
                String a = assertThrows(IllegalStateException.class, () -> pool.awaitTermination(Duration.ofSeconds(1))).getMessage();
                String b = assertThrows(IllegalStateException.class, () -> other.awaitTermination(Duration.ofSeconds(1))).getMessage();
                return a + "\n" + b;
            }).join(Duration.ofSeconds(30));
            assertTrue(refusals.contains("RingPool.awaitTermination"), refusals);
            assertTrue(refusals.contains("MessagePump.awaitTermination"), refusals);
            never.complete(null);
            assertTrue(pool.awaitTermination(Duration.ofSeconds(60)));
            assertTrue(other.awaitTermination(Duration.ofSeconds(60)));
        } finally {
            ui.close();
            pool.close();
            other.close();
        }
    }

    @Test
    void closingATaskScopeOnThePumpCancelsItsChildrenAndIsRefusedByName() throws Exception {
        MessagePump ui = MessagePump.start("scope-ui");
        java.util.concurrent.ExecutorService virtual = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor();
        try {
            Promise<Void> never = new Promise<>();
            TaskScope scope = TaskScope.open("on the pump");
            Task<Void> child = scope.fork(kotlinx.coroutines.Dispatchers.getDefault(), () -> {
                never.join();
                return null;
            });
            String refusal = Task.start(ui, () -> assertThrows(IllegalStateException.class, scope::close).getMessage())
                    .join(Duration.ofSeconds(30));
            assertTrue(refusal.startsWith("TaskScope.close()"), refusal);
            never.complete(null); // the body, a plain callable, runs to its end; the task was cancelled by the close
            Task.startVirtual(() -> {
                try {
                    return child.join(Duration.ofSeconds(30));
                } catch (java.util.concurrent.CancellationException expected) {
                    return null;
                }
            }).join(Duration.ofSeconds(30));
            assertTrue(child.outcomeOrNull() != null && child.outcomeOrNull().isCancelled(), "cancelled by the close: " + child);
        } finally {
            ui.close();
            virtual.shutdownNow();
        }
    }
}
