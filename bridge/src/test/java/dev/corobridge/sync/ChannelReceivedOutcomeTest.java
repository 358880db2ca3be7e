package dev.corobridge.sync;

import static dev.corobridge.sync.SyncTestSupport.WAIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.bridge.Awaitable;
import dev.corobridge.bridge.Outcome;
import dev.corobridge.bridge.Registration;
import dev.corobridge.bridge.Task;
import dev.corobridge.stream.Next;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A receive (or next) that waited and got its element: the sender leaves the element in the
 * operation instead of making its outcome, so every way of reading the outcome must make the
 * element's own — {@code outcomeOrNull}, a callback registered before or after the hand-over,
 * {@code join}, {@code resultNow}, {@code toString}, a task made from it — and a cancel that comes
 * after the match must change none of them.
 */
class ChannelReceivedOutcomeTest {

    @Test
    void aReceiveThatWaitedShowsTheElementHoweverItsOutcomeIsRead() throws Exception {
        AsyncChannel<String> ch = AsyncChannel.rendezvous();
        Awaitable<String> r = ch.receiveAsync();
        List<Outcome<String>> before = new ArrayList<>();
        r.onComplete(before::add);
        assertNull(r.outcomeOrNull());
        assertEquals("receive[pending]", r.toString());

        assertTrue(ch.trySend("x"));

        assertEquals(List.of(new Outcome.Success<>("x")), before, "a callback registered before the hand-over");
        assertEquals(new Outcome.Success<>("x"), r.outcomeOrNull());
        List<Outcome<String>> after = new ArrayList<>();
        assertEquals(Registration.NONE, r.onComplete(after::add));
        assertEquals(List.of(new Outcome.Success<>("x")), after, "a callback registered after it");
        assertEquals("x", r.join());
        assertEquals("x", r.join(WAIT));
        assertEquals("x", r.resultNow());
        assertFalse(r.cancel(), "matched already: the element is the receive's");
        assertEquals("x", r.resultNow());
        assertEquals("x", Task.from(r).join(WAIT));
        assertEquals("receive[" + new Outcome.Success<>("x") + "]", r.toString());
    }

    @Test
    void aNextThatWaitedShowsTheElementAsANextValue() throws Exception {
        AsyncChannel<String> ch = AsyncChannel.rendezvous();
        Awaitable<Next<String>> n = ch.nextAsync();
        AtomicReference<Outcome<Next<String>>> before = new AtomicReference<>();
        n.onComplete(before::set);

        assertTrue(ch.trySend("y"));

        Outcome<Next<String>> expected = new Outcome.Success<>(new Next.Value<>("y"));
        assertEquals(expected, before.get());
        assertEquals(expected, n.outcomeOrNull());
        assertEquals(new Next.Value<>("y"), n.join());
        assertEquals(new Next.Value<>("y"), n.resultNow());
        assertFalse(n.cancel());
        assertEquals(expected, n.outcomeOrNull());
    }

    @Test
    void aReceiveThatWaitedAndWasEndedInsteadShowsTheEnd() throws Exception {
        AsyncChannel<String> ch = AsyncChannel.rendezvous();
        Awaitable<String> r = ch.receiveAsync();
        Awaitable<Next<String>> n = ch.nextAsync();
        ch.close();
        assertTrue(r.outcomeOrNull() instanceof Outcome.Failure<String> f
                && f.error() instanceof kotlinx.coroutines.channels.ClosedReceiveChannelException);
        assertTrue(n.resultNow().isEnd());
    }

    /**
     * The element is published by the decided state alone: readers on other threads that see the
     * receive done (polling, a callback, a joiner) all see the element that was sent, for many
     * hand-overs in a row.
     */
    @Test
    void readersOnOtherThreadsSeeTheElementTheStateSaysIsThere() throws Exception {
        AsyncChannel<Integer> ch = AsyncChannel.rendezvous();
        int rounds = 2_000;
        List<String> wrong = new CopyOnWriteArrayList<>();
        for (int i = 0; i < rounds; i++) {
            Awaitable<Integer> r = ch.receiveAsync();
            Integer sent = i;
            CountDownLatch read = new CountDownLatch(2);
            r.onComplete(o -> {
                if (!new Outcome.Success<>(sent).equals(o)) {
                    wrong.add("callback " + sent + ": " + o);
                }
                read.countDown();
            });
            Thread poller = Thread.ofPlatform().start(() -> {
                Outcome<Integer> o;
                while ((o = r.outcomeOrNull()) == null) {
                    Thread.onSpinWait();
                }
                if (!new Outcome.Success<>(sent).equals(o)) {
                    wrong.add("poller " + sent + ": " + o);
                }
                read.countDown();
            });
            Thread sender = Thread.ofVirtual().start(() -> ch.trySend(sent));
            Integer joined = r.join(WAIT);
            if (!sent.equals(joined)) {
                wrong.add("join " + sent + ": " + joined);
            }
            sender.join();
            poller.join();
            assertTrue(read.await(WAIT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS));
            if (wrong.size() > 10) {
                break;
            }
        }
        assertEquals(List.of(), wrong);
    }
}
