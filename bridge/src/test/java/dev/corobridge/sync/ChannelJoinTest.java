package dev.corobridge.sync;

import static dev.corobridge.sync.SyncTestSupport.WAIT;
import static dev.corobridge.sync.SyncTestSupport.original;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.bridge.Awaitable;
import dev.corobridge.bridge.internal.BlockingGuard;
import java.io.IOException;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import org.junit.jupiter.api.Test;

/**
 * {@code join()} on a channel operation that has to wait: the joining thread is woken by the party
 * that decides the operation, with every exit of a join — the value, a failure, a cancellation,
 * an interrupt, two joiners at once, a thread that must not block.
 */
class ChannelJoinTest {

    @Test
    void aJoinedReceiveReturnsTheElementTheSenderHandsOver() throws Exception {
        AsyncChannel<String> ch = AsyncChannel.rendezvous();
        Awaitable<String> r = ch.receiveAsync();
        Joiner<String> j = Joiner.start(r::join);
        j.awaitParked();
        assertTrue(ch.trySend("x"));
        assertEquals("x", j.result());
    }

    @Test
    void twoThreadsJoiningTheSameReceiveBothGetTheElement() throws Exception {
        AsyncChannel<String> ch = AsyncChannel.rendezvous();
        Awaitable<String> r = ch.receiveAsync();
        Joiner<String> a = Joiner.start(r::join);
        Joiner<String> b = Joiner.start(r::join);
        a.awaitParked();
        b.awaitParked();
        assertTrue(ch.trySend("both"));
        assertEquals("both", a.result());
        assertEquals("both", b.result());
    }

    @Test
    void aJoinedSendFailsWhenTheChannelIsCancelledAndAReceiveWithTheCheckedCloseCause() throws Exception {
        AsyncChannel<String> ch = AsyncChannel.rendezvous();
        Awaitable<Void> s = ch.sendAsync("never");
        Joiner<Void> sender = Joiner.start(s::join);
        sender.awaitParked();
        ch.cancel();
        assertInstanceOf(java.util.concurrent.CancellationException.class, sender.failure());

        AsyncChannel<String> failed = AsyncChannel.rendezvous();
        Awaitable<String> r = failed.receiveAsync();
        Joiner<String> receiver = Joiner.start(r::join);
        receiver.awaitParked();
        IOException cause = new IOException("source broke");
        failed.close(cause);
        Throwable thrown = receiver.failure();
        assertInstanceOf(CompletionException.class, thrown, "a checked cause is wrapped, as by every join");
        assertSame(cause, original(thrown.getCause()));
    }

    @Test
    void anInterruptedJoinThrowsAndLeavesTheReceiveWaiting() throws Exception {
        AsyncChannel<String> ch = AsyncChannel.rendezvous();
        Awaitable<String> r = ch.receiveAsync();
        Joiner<String> j = Joiner.start(r::join);
        j.awaitParked();
        j.thread.interrupt();
        assertInstanceOf(InterruptedException.class, j.failure());
        assertFalse(r.isDone(), "the interrupt stopped the wait, not the receive");
        Joiner<String> again = Joiner.start(r::join); // the slot was freed: a new joiner is woken too
        again.awaitParked();
        assertTrue(ch.trySend("later"));
        assertEquals("later", again.result());
    }

    @Test
    void aJoinOnAThreadThatMustNotBlockIsRefused() throws Exception {
        AsyncChannel<String> ch = AsyncChannel.rendezvous();
        Awaitable<String> r = ch.receiveAsync();
        Joiner<String> j = Joiner.start(() -> {
            BlockingGuard.forbidBlocking("test loop");
            try {
                return r.join();
            } finally {
                BlockingGuard.allowBlocking();
            }
        });
        assertInstanceOf(IllegalStateException.class, j.failure());
        assertTrue(r.cancel(), "the receive was still waiting");
    }

    /** A virtual thread running {@code body}; its result or failure, waited for (bounded). */
    private record Joiner<T>(Thread thread, FutureTask<T> task) {

        static <T> Joiner<T> start(Callable<T> body) {
            FutureTask<T> task = new FutureTask<>(body);
            return new Joiner<>(Thread.ofVirtual().start(task), task);
        }

        /** Waits (bounded) until the thread is parked in its join. */
        void awaitParked() {
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (thread.getState() != Thread.State.WAITING) {
                if (System.nanoTime() > deadline || task.isDone()) {
                    throw new AssertionError("not parked in join: " + thread.getState() + ", done: " + task.isDone());
                }
                Thread.onSpinWait();
            }
        }

        T result() throws Exception {
            return task.get(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
        }

        Throwable failure() throws Exception {
            ExecutionException e = assertThrows(ExecutionException.class, this::result);
            return e.getCause();
        }
    }
}
