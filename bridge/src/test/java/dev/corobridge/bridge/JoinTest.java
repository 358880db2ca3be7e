package dev.corobridge.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.bridge.internal.BlockingGuard;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Java's blocking wait, {@code join()} / {@code join(Duration)}: every exit — value, unchecked and
 * checked failure, cancellation, timeout (the work goes on), interrupt (the work goes on), and the
 * refusal on a thread that must never block.
 */
class JoinTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void value() throws Exception {
        Promise<String> p = new Promise<>();
        Thread.ofVirtual().start(() -> p.complete("v"));
        assertEquals("v", p.join());
        assertEquals("v", p.join(WAIT));
    }

    @Test
    void failureUncheckedAsItsOwnCopyCheckedInACompletionException() {
        Promise<String> unchecked = new Promise<>();
        IllegalStateException original = new IllegalStateException("no");
        unchecked.fail(original);
        IllegalStateException thrown = assertThrows(IllegalStateException.class, unchecked::join);
        assertEquals("no", thrown.getMessage());

        Promise<String> checked = new Promise<>();
        IOException io = new IOException("disk");
        checked.fail(io);
        CompletionException wrapped = assertThrows(CompletionException.class, () -> checked.join(WAIT));
        assertSame(io, wrapped.getCause());
    }

    @Test
    void cancellation() {
        Promise<String> p = new Promise<>();
        ContextShutdownException why = new ContextShutdownException("pump ui terminated");
        assertTrue(p.cancel(why));
        assertSame(why, assertThrows(CancellationException.class, p::join));
        assertSame(why, assertThrows(CancellationException.class, () -> p.join(WAIT)));
    }

    @Test
    void aBoundedJoinThatRunsOutThrowsTimeoutExceptionAndLeavesTheWorkAlone() throws Exception {
        Promise<String> p = new Promise<>();
        assertThrows(TimeoutException.class, () -> p.join(Duration.ofMillis(1)));
        assertThrows(TimeoutException.class, () -> p.join(Duration.ofMillis(-5)), "a negative bound does not wait");
        assertFalse(p.isDone(), "join(d) never cancels");
        p.complete("later");
        assertEquals("later", p.join(Duration.ZERO), "a done awaitable needs no time");
    }

    @Test
    void anInterruptStopsTheJoinNotTheWork() throws Exception {
        Promise<String> p = new Promise<>();
        AtomicReference<Throwable> ended = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(1);
        Thread waiter = Thread.ofPlatform().start(() -> {
            try {
                p.join();
            } catch (Throwable e) {
                ended.set(e);
            } finally {
                done.countDown();
            }
        });
        waiter.interrupt();
        assertTrue(done.await(30, TimeUnit.SECONDS));
        assertInstanceOf(InterruptedException.class, ended.get());
        assertFalse(p.isDone());
    }

    @Test
    void aThreadThatMustNeverBlockIsRefusedWithTheFixUnlessTheValueIsThere() throws Exception {
        Promise<String> pending = new Promise<>();
        Promise<String> done = new Promise<>();
        done.complete("ready");
        AtomicReference<Throwable> refused = new AtomicReference<>();
        AtomicReference<String> fastPath = new AtomicReference<>();
        Thread loop = Thread.ofPlatform().start(() -> {
            BlockingGuard.forbidBlocking("loop-x");
            try {
                fastPath.set(done.join());
                pending.join(WAIT);
            } catch (Throwable e) {
                refused.set(e);
            } finally {
                BlockingGuard.allowBlocking();
            }
        });
        loop.join(30_000);
        assertEquals("ready", fastPath.get(), "a done awaitable returns at once, even there");
        String m = assertInstanceOf(IllegalStateException.class, refused.get()).getMessage();
        assertTrue(m.startsWith("join() called on the thread of 'loop-x'"), m);
        assertTrue(m.contains("thenOn(loop-x") && m.contains("Task.startVirtual") && m.contains("await()"), m);
        assertFalse(pending.isDone());
    }
}
