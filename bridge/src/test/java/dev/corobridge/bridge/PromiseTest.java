package dev.corobridge.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.bridge.internal.BlockingGuard;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Every exit of a Promise: value, failure, cancel, timeout, shutdown; callbacks exactly once. */
class PromiseTest {

    @AfterEach
    void restoreHandler() {
        Tasks.resetUncaughtFailureHandler();
    }

    @Test
    void firstSettleWinsAndLosersChangeNothing() throws Exception {
        Promise<String> p = new Promise<>();
        assertFalse(p.isDone());
        assertNull(p.outcomeOrNull());
        assertTrue(p.complete("v"));
        assertFalse(p.fail(new IllegalStateException()));
        assertFalse(p.cancel());
        assertFalse(p.cancel(new ContextShutdownException("x")));
        assertFalse(p.settle(new Outcome.Failure<>(new IllegalStateException())));
        assertFalse(p.complete("w"));
        assertEquals("v", p.join());
        assertEquals("v", p.resultNow());
        assertEquals(new Outcome.Success<>("v"), p.outcomeOrNull());
    }

    @Test
    void eachExitIsDistinguishable() {
        Promise<String> failed = new Promise<>();
        failed.fail(new IllegalArgumentException("bad"));
        assertInstanceOf(Outcome.Failure.class, failed.outcomeOrNull());
        assertThrows(IllegalArgumentException.class, failed::join);

        Promise<String> cancelled = new Promise<>();
        cancelled.cancel();
        assertTrue(cancelled.outcomeOrNull().isCancelled());
        assertThrows(CancellationException.class, cancelled::join);

        Promise<String> timedOut = new Promise<>();
        timedOut.fail(new TaskTimeoutException(Duration.ofMillis(5)));
        assertInstanceOf(Outcome.Failure.class, timedOut.outcomeOrNull(), "a time limit that passed is a failure");
        TaskTimeoutException te = assertThrows(TaskTimeoutException.class, timedOut::join);
        assertEquals(Duration.ofMillis(5), te.limit());

        Promise<String> shut = new Promise<>();
        shut.cancel(new ContextShutdownException("pump ui terminated"));
        ContextShutdownException se = assertThrows(ContextShutdownException.class, shut::join);
        assertTrue(se.getMessage().contains("pump ui"));

        Promise<String> checked = new Promise<>();
        checked.fail(new java.io.IOException("disk"));
        CompletionException ce = assertThrows(CompletionException.class, checked::join);
        assertInstanceOf(java.io.IOException.class, ce.getCause());

        Promise<String> viaFail = new Promise<>();
        viaFail.fail(new CancellationException("as cancel"));
        assertTrue(viaFail.outcomeOrNull().isCancelled(), "a CancellationException cancels");
        assertThrows(IllegalStateException.class, viaFail::resultNow);
        assertThrows(IllegalArgumentException.class, () -> new Outcome.Failure<>(new CancellationException()));
    }

    @Test
    void callbacksRunOnceInRegistrationOrderBeforeAndAfterCompletion() {
        Promise<Integer> p = new Promise<>();
        List<String> log = new ArrayList<>();
        p.onComplete(o -> log.add("a" + ((Outcome.Success<Integer>) o).value()));
        Registration gone = p.onComplete(o -> log.add("withdrawn"));
        p.onComplete(o -> log.add("b"));
        gone.dispose();
        p.complete(1);
        p.complete(2);
        p.onComplete(o -> log.add("late"));
        assertEquals(List.of("a1", "b", "late"), log);
    }

    @Test
    void theOutcomeIsPublishedBeforeCallbacksRun() {
        Promise<String> p = new Promise<>();
        AtomicReference<Outcome<String>> seen = new AtomicReference<>();
        p.onComplete(o -> seen.set(p.outcomeOrNull()));
        p.complete("x");
        assertSame(p.outcomeOrNull(), seen.get());
    }

    @Test
    void aThrowingCallbackIsReportedAndOthersStillRun() {
        List<Throwable> reported = new ArrayList<>();
        Tasks.setUncaughtFailureHandler((t, e) -> reported.add(e));
        long before = Tasks.uncaughtFailures();
        Promise<String> p = new Promise<>();
        AtomicInteger ran = new AtomicInteger();
        p.onComplete(o -> {
            throw new IllegalStateException("callback bug");
        });
        p.onComplete(o -> ran.incrementAndGet());
        p.complete("v");
        assertEquals(1, ran.get());
        assertEquals(1, reported.size());
        assertEquals(before + 1, Tasks.uncaughtFailures());
    }

    @Test
    void manyAwaitersThatGiveUpDoNotLeak() throws Exception {
        Promise<String> p = new Promise<>();
        for (int i = 0; i < 100_000; i++) {
            p.onComplete(o -> { }).dispose();
        }
        // Pruning keeps the stack short: count the live nodes by completing and counting calls.
        AtomicInteger live = new AtomicInteger();
        p.onComplete(o -> live.incrementAndGet());
        p.complete("done");
        assertEquals(1, live.get());
        for (int i = 0; i < 3; i++) {
            assertThrows(TimeoutException.class, () -> new Promise<String>().join(Duration.ofMillis(1)));
        }
    }

    @Test
    void awaitOnAThreadThatMustNotBlockFailsNamingTheFix() throws Exception {
        Promise<String> p = new Promise<>();
        AtomicReference<Throwable> error = new AtomicReference<>();
        Thread loop = new Thread(() -> {
            BlockingGuard.forbidBlocking("ui");
            try {
                p.join();
            } catch (Throwable e) {
                error.set(e);
            }
        }, "fake-pump");
        loop.start();
        loop.join();
        assertInstanceOf(IllegalStateException.class, error.get());
        String m = error.get().getMessage();
        assertTrue(m.contains("'ui'") && m.contains("fake-pump") && m.contains("thenOn") && m.contains("virtual"), m);
        p.complete("done");
        Thread doneAlready = new Thread(() -> {
            BlockingGuard.forbidBlocking("ui");
            try {
                error.set(new AssertionError(p.join())); // done: the fast path never blocks, so it is allowed
            } catch (Throwable e) {
                error.set(e);
            }
        });
        doneAlready.start();
        doneAlready.join();
        assertEquals("done", error.get().getMessage());
    }

    @Test
    void interruptStopsTheWaitNotThePromise() throws Exception {
        Promise<String> p = new Promise<>();
        AtomicReference<Throwable> error = new AtomicReference<>();
        Thread waiter = new Thread(() -> {
            try {
                p.join();
            } catch (Throwable e) {
                error.set(e);
            }
        });
        waiter.start();
        waiter.interrupt();
        waiter.join();
        assertInstanceOf(InterruptedException.class, error.get());
        assertFalse(p.isDone());
    }
}
