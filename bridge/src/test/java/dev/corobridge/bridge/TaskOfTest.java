package dev.corobridge.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.bridge.internal.OutcomeCell;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

/** {@link Task#from(Awaitable)}: any awaitable becomes composable; its source decides cancellation. */
class TaskOfTest {

    /** An operation that, like a channel receive that already matched, may refuse to be cancelled. */
    private static final class Stubborn extends OutcomeCell<String> {
        volatile boolean refuse;

        @Override
        public boolean cancel(CancellationException cause) {
            return !refuse && super.cancel(cause);
        }

        void complete(String value) {
            decide(new Outcome.Success<>(value));
        }
    }

    @Test
    void aPromiseBecomesATaskThatComposesOnAnyExecutor() throws Exception {
        ExecutorService single = Executors.newSingleThreadExecutor(r -> new Thread(r, "stage"));
        try {
            Promise<Integer> p = new Promise<>();
            Task<String> t = Task.from(p).thenOn(single, v -> v + "@" + Thread.currentThread().getName());
            p.complete(7);
            assertEquals("7@stage", t.join(Duration.ofSeconds(30)));
            Task<Integer> already = Task.completed(1);
            assertSame(already, Task.from(already));
            assertThrows(NullPointerException.class, () -> Task.from((Awaitable<Integer>) null));
        } finally {
            single.shutdownNow();
        }
    }

    @Test
    void cancellingTheTaskCancelsTheSourceWhichDecides() {
        Stubborn withdrawable = new Stubborn();
        Task<String> t = Task.from(withdrawable);
        assertTrue(t.cancel());
        assertTrue(withdrawable.outcomeOrNull().isCancelled());
        assertTrue(t.outcomeOrNull().isCancelled());

        Stubborn matched = new Stubborn();
        matched.refuse = true;
        Task<String> kept = Task.from(matched);
        assertFalse(kept.cancel(), "the source refused: the task is not cancelled behind its back");
        assertFalse(kept.isDone());
        matched.complete("the element");
        assertEquals("the element", kept.resultNow(), "the value is not lost");
    }

    @Test
    void aTimeoutOfAnAdoptedTaskAsksTheSource() throws Exception {
        Stubborn withdrawable = new Stubborn();
        Task<String> limited = Task.from(withdrawable).withTimeout(Duration.ofMillis(10));
        TaskTimeoutException e = assertThrows(TaskTimeoutException.class, () -> limited.join(Duration.ofSeconds(30)));
        assertEquals(Duration.ofMillis(10), e.limit());
        assertInstanceOf(Outcome.Failure.class, limited.outcomeOrNull(), "the limited task failed with the timeout");
        assertTrue(withdrawable.outcomeOrNull().isCancelled(), "the source was withdrawn");
        assertInstanceOf(TaskTimeoutException.class, withdrawable.outcomeOrNull().errorOrNull().getCause(),
                "the source's cancellation says that the limit passed");

        Stubborn matched = new Stubborn();
        matched.refuse = true;
        Task<String> late = Task.from(matched).withTimeout(Duration.ofMillis(10));
        Task<String> gate = Task.from(matched).withTimeout(Duration.ofSeconds(30));
        assertFalse(gate.cancel(), "cancelling the limited task also asks the source");
        matched.complete("late but kept");
        assertEquals("late but kept", late.join(Duration.ofSeconds(30)));
    }
}
