package dev.corobridge.sync;

import dev.corobridge.bridge.Awaitable;
import dev.corobridge.bridge.Outcome;
import dev.corobridge.lincheck.NoExceptionVerifier;
import dev.corobridge.lincheck.Scenarios;
import dev.corobridge.stream.Next;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Supplier;
import kotlinx.coroutines.channels.ClosedReceiveChannelException;
import kotlinx.coroutines.channels.ClosedSendChannelException;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Test;

/**
 * Lincheck model checking and stress of {@link AsyncChannel}'s Java face: every operation ends,
 * the documented way, and no element is lost or duplicated, under cancellation of single
 * operations and under a close or cancel of the channel. Threads send (each element unique), try
 * to send, receive (with {@code receive()} and {@code next()}), try to receive, cancel the oldest
 * pending-or-matched send or receive, and {@code close()} or {@code cancel()} the channel, on a
 * rendezvous channel and on a channel with a buffer of one.
 *
 * <p>Results are not checked for linearizability (the elements are numbered in the order the
 * operations run, which no sequential run reproduces: the tests use {@link NoExceptionVerifier},
 * which accepts any result but an exception); {@link Ops#everyExitIsRight()} checks after every
 * interleaving:
 * <ul>
 *   <li>no receive waits while an element is buffered or a sender waits (a lost hand-over), nor
 *       once the channel was closed or cancelled;</li>
 *   <li>no operation throws;</li>
 *   <li>every operation that ended ran its callback exactly once; a {@code cancel()} of it that
 *       returned {@code true} left it cancelled (nothing sent or received), one that returned
 *       {@code false} found it matched (it then completes normally);</li>
 *   <li>otherwise an operation ends cancelled only after a {@code cancel()} of the channel, and
 *       fails only with {@link ClosedSendChannelException} / {@link ClosedReceiveChannelException}
 *       after a {@code close()} or with the cancellation after a {@code cancel()}; {@code next()}
 *       ends with the end only after one of them; the tries throw those and nothing else;</li>
 *   <li>after draining the channel with {@code tryReceive()} (which also takes from waiting
 *       senders) no send waits, and each element is received (by a completed receive,
 *       {@code tryReceive()} or the drain) at most once and only if its send succeeded (a completed
 *       send, a successful {@code trySend}): the element of a withdrawn or failed send never.
 *       Without a {@code cancel()} of the channel, every element whose send succeeded is received
 *       (a cancel discards the buffer, as documented).</li>
 * </ul>
 * The randomized stress beside this test is {@code ChannelCancellationRaceTest}.
 */
class AsyncChannelLincheckTest {

    /** The state of one invocation on a channel; the subclasses choose the capacity. */
    public abstract static class Ops {
        private final AsyncChannel<Integer> channel;
        private final AtomicInteger nextElement = new AtomicInteger();
        private final AtomicReferenceArray<Call> calls = new AtomicReferenceArray<>(64);
        private final AtomicInteger started = new AtomicInteger();
        /** Elements trySend() put in, and elements tryReceive() took out. */
        private final Queue<Integer> triedSent = new ConcurrentLinkedQueue<>();
        private final Queue<Integer> triedReceived = new ConcurrentLinkedQueue<>();
        /** What an operation saw that it must not have. */
        private final Queue<String> problems = new ConcurrentLinkedQueue<>();
        /** Set before the channel is closed (cancelled), so that a failure seen after it is expected. */
        private volatile boolean closing;
        private volatile boolean cancelling;

        Ops(AsyncChannel<Integer> channel) {
            this.channel = channel;
        }

        /** A send (its element) or a receive (element null), its awaitable and the cancel made on it. */
        private static final class Call {
            final Integer element;
            final Awaitable<?> op;
            final AtomicInteger callbacks = new AtomicInteger();
            final AtomicBoolean cancelRequested = new AtomicBoolean();
            /** What cancel() returned: null while not cancelled. */
            volatile Boolean cancelled;

            Call(Integer element, Awaitable<?> op) {
                this.element = element;
                this.op = op;
            }

            boolean isSend() {
                return element != null;
            }

            @Override
            public String toString() {
                return (isSend() ? "send(" + element + ")" : "receive") + " " + op.outcomeOrNull() + " cancel()=" + cancelled;
            }
        }

        /** Starts an operation: a send of {@code element}, or a receive ({@code null}). */
        private void start(Integer element, Supplier<Awaitable<?>> operation) {
            Awaitable<?> op;
            try {
                op = operation.get();
            } catch (Throwable t) { // reported by the validation, with every call's state
                problems.add((element == null ? "a receive" : "send(" + element + ")") + " threw " + t);
                return;
            }
            Call c = new Call(element, op);
            calls.set(started.getAndIncrement(), c);
            c.op.onComplete(o -> c.callbacks.incrementAndGet());
        }

        private List<Call> calls() {
            List<Call> list = new ArrayList<>();
            for (int i = 0, n = started.get(); i < n; i++) {
                Call c = calls.get(i);
                if (c != null) { // null: its operation is between taking the slot and filling it
                    list.add(c);
                }
            }
            return list;
        }

        @Operation
        public void send() {
            Integer e = nextElement.incrementAndGet();
            start(e, () -> channel.sendAsync(e));
        }

        @Operation
        public void trySend() {
            Integer e = nextElement.incrementAndGet();
            try {
                if (channel.trySend(e)) {
                    triedSent.add(e);
                }
            } catch (Throwable t) {
                expectEnded("trySend(" + e + ")", t, ClosedSendChannelException.class);
            }
        }

        @Operation
        public void receive() {
            start(null, channel::receiveAsync);
        }

        @Operation
        public void next() {
            start(null, channel::nextAsync);
        }

        @Operation
        public void tryReceive() {
            try {
                Integer e = channel.tryReceive();
                if (e != null) {
                    triedReceived.add(e);
                }
            } catch (Throwable t) {
                expectEnded("tryReceive()", t, ClosedReceiveChannelException.class);
            }
        }

        @Operation
        public void cancelSend() {
            cancelOldest(true);
        }

        @Operation
        public void cancelReceive() {
            cancelOldest(false);
        }

        private void cancelOldest(boolean sends) {
            for (Call c : calls()) {
                if (c.isSend() == sends && c.cancelRequested.compareAndSet(false, true)) {
                    try {
                        c.cancelled = c.op.cancel();
                    } catch (Throwable t) {
                        problems.add(c + ": cancel() threw " + t);
                    }
                    return;
                }
            }
        }

        @Operation
        public void close() {
            closing = true;
            try {
                channel.close();
            } catch (Throwable t) {
                problems.add("close() threw " + t);
            }
        }

        @Operation
        public void cancelChannel() {
            cancelling = true;
            try {
                channel.cancel();
            } catch (Throwable t) {
                problems.add("cancel() of the channel threw " + t);
            }
        }

        /** {@code t} must be {@code closed} after a close, or a cancellation after a cancel. */
        private void expectEnded(String what, Throwable t, Class<? extends Throwable> closed) {
            boolean expected = (closing && closed.isInstance(t)) || (cancelling && t instanceof CancellationException);
            if (!expected) {
                problems.add(what + " threw " + t + " (closing=" + closing + ", cancelling=" + cancelling + ")");
            }
        }

        @Validate
        public void everyExitIsRight() {
            List<String> found = new ArrayList<>();
            List<Call> all = calls();
            boolean ended = closing || cancelling;
            boolean receiverWaits = all.stream().anyMatch(c -> !c.isSend() && !c.op.isDone());
            boolean senderWaits = all.stream().anyMatch(c -> c.isSend() && !c.op.isDone());
            if (receiverWaits && (ended || senderWaits || !channel.isEmpty())) {
                found.add("a receive waits while " + (ended ? "the channel is closed"
                        : senderWaits ? "a send waits" : "an element is buffered"));
            }
            List<Integer> received = new ArrayList<>(triedReceived);
            for (;;) { // the drain: also completes senders waiting for room or a receiver
                Integer e;
                try {
                    e = channel.tryReceive();
                } catch (Throwable t) {
                    expectEnded("the drain", t, ClosedReceiveChannelException.class);
                    break;
                }
                if (e == null) {
                    break;
                }
                received.add(e);
            }
            Set<Integer> sent = new TreeSet<>(triedSent);
            Set<Integer> notSent = new HashSet<>(); // withdrawn or failed sends
            for (Call c : all) {
                Outcome<?> o = c.op.outcomeOrNull();
                if (o == null) {
                    if (c.isSend()) {
                        found.add(c + " still waits after the drain");
                    }
                    continue;
                }
                if (c.callbacks.get() != 1) {
                    found.add(c + ": callback ran " + c.callbacks.get() + " times");
                }
                if (Boolean.TRUE.equals(c.cancelled) && !o.isCancelled()) {
                    found.add(c + ": cancel() returned true, but the outcome is not cancelled");
                }
                switch (o) {
                    case Outcome.Success<?> s when c.isSend() -> sent.add(c.element);
                    case Outcome.Success<?> s when s.value() instanceof Next<?> n && !n.hasValue() -> {
                        boolean expected = n instanceof Next.End<?> end
                                && (end.cancellation() == null ? closing : cancelling);
                        if (!expected) {
                            found.add(c + " ended, but the channel was not closed that way");
                        }
                    }
                    case Outcome.Success<?> s -> received.add(
                            s.value() instanceof Next.Value<?> v ? (Integer) v.value() : (Integer) s.value());
                    case Outcome.Failure<?> f -> {
                        if (c.isSend()) {
                            notSent.add(c.element);
                        }
                        expectEnded(c.toString(), f.error(),
                                c.isSend() ? ClosedSendChannelException.class : ClosedReceiveChannelException.class);
                    }
                    case Outcome.Cancelled<?> x -> {
                        if (c.isSend()) {
                            notSent.add(c.element);
                        }
                        if (!Boolean.TRUE.equals(c.cancelled) && !cancelling) {
                            found.add(c + " cancelled, by neither its cancel() nor the channel's");
                        }
                    }
                }
            }
            Set<Integer> distinct = new TreeSet<>(received);
            if (distinct.size() != received.size()) {
                found.add("an element was received twice: " + received);
            }
            if (!sent.containsAll(distinct)) {
                found.add("received " + received + " but only " + sent + " were sent");
            }
            notSent.retainAll(distinct);
            if (!notSent.isEmpty()) {
                found.add("the elements of withdrawn or failed sends were received: " + notSent);
            }
            if (!cancelling && !distinct.equals(sent)) {
                found.add("sent " + sent + " but received " + received + " (no cancel of the channel)");
            }
            found.addAll(problems); // the operations' own, and the drain's and outcomes' above
            if (!found.isEmpty()) {
                throw new AssertionError(String.join("; ", found) + "; calls " + all);
            }
        }
    }

    /** A channel without a buffer: every send waits for a receive. */
    public static class Rendezvous extends Ops {
        public Rendezvous() {
            super(AsyncChannel.rendezvous());
        }
    }

    /** A channel buffering one element. */
    public static class BufferOfOne extends Ops {
        public BufferOfOne() {
            super(AsyncChannel.bounded(1));
        }
    }

    /**
     * Model checking of hand-written scenarios, each pinning a race that a random mix rarely
     * builds; the random mixes run in {@link #stress()}.
     */
    private static void modelCheck(Class<? extends Ops> ops) {
        new ModelCheckingOptions()
                .iterations(0)
                .invocationsPerIteration(150)
                .verifier(NoExceptionVerifier.class)
                // A receive matched while it is being cancelled.
                .addCustomScenario(Scenarios.parallel(ops, "receive", "send", "cancelReceive"))
                // Sends matched (or buffered) while one is being cancelled; next() and tryReceive take.
                .addCustomScenario(Scenarios.parallel(ops, "send; send", "next", "cancelSend; tryReceive"))
                // trySend and tryReceive against a waiting receive that is being cancelled.
                .addCustomScenario(Scenarios.parallel(ops, "next; trySend", "cancelReceive; tryReceive", "trySend"))
                // A close while a send and a receive meet, and a receive arrives late.
                .addCustomScenario(Scenarios.parallel(ops, "send; receive", "next", "close"))
                // A close while sends wait (their elements must still be received) and a try drains.
                .addCustomScenario(Scenarios.parallel(ops, "send; send", "close; tryReceive", "trySend; next"))
                // A cancel of the channel while sends and receives wait, match and try.
                .addCustomScenario(Scenarios.parallel(ops, "send; tryReceive", "receive; trySend", "cancelChannel"))
                // A close and a cancel racing each other, a waiting send and receive, and a withdrawal.
                .addCustomScenario(Scenarios.parallel(ops, "send; close", "next; cancelSend", "cancelChannel"))
                .check(ops);
    }

    @Test
    void modelCheckingRendezvous() {
        modelCheck(Rendezvous.class);
    }

    @Test
    void modelCheckingBufferOfOne() {
        modelCheck(BufferOfOne.class);
    }

    @Test
    void stress() {
        for (Class<? extends Ops> ops : List.of(Rendezvous.class, BufferOfOne.class)) {
            new StressOptions()
                    .iterations(10)
                    .invocationsPerIteration(2_000)
                    .threads(3)
                    .actorsPerThread(3)
                    .actorsBefore(0)
                    .actorsAfter(1)
                    .verifier(NoExceptionVerifier.class)
                    .check(ops);
        }
    }
}
