package dev.corobridge.sync;

import dev.corobridge.bridge.Awaitable;
import dev.corobridge.bridge.Outcome;
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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import kotlinx.coroutines.channels.ClosedReceiveChannelException;
import kotlinx.coroutines.channels.ClosedSendChannelException;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.jetbrains.lincheck.datastructures.Validate;
import org.jetbrains.lincheck.datastructures.verifier.EpsilonVerifier;
import org.junit.jupiter.api.Test;

/**
 * Lincheck model checking and stress of {@link AsyncChannel}'s Java face when the channel is
 * closed or cancelled while sends and receives wait, match or try: every operation ends, the right
 * way, and nothing is lost or duplicated. Threads send (each element unique), try to send, receive
 * (with {@code receiveAsync()} and {@code nextAsync()}), try to receive, {@code close()} and
 * {@code cancel()} the channel, on a rendezvous channel and on a channel with a buffer of one.
 *
 * <p>Results are checked by {@link Ops#everyExitIsRight()} after every interleaving, not for
 * linearizability (the elements are numbered in the order the operations run; the tests use
 * Lincheck's {@code EpsilonVerifier}). After draining the channel with {@code tryReceive()}:
 * <ul>
 *   <li>no send waits; once the channel was closed or cancelled, no receive waits;</li>
 *   <li>every operation that ended ran its callback exactly once; a send fails only with
 *       {@link ClosedSendChannelException} (after a close) or cancelled (after a cancel), a receive
 *       only with {@link ClosedReceiveChannelException} or cancelled, and {@code next()} ends only
 *       with the end, and only after one of them; the tries throw those too, and nothing else;</li>
 *   <li>each element is received at most once, and only if its send succeeded; without a
 *       {@code cancel()}, every element whose send succeeded is received (a cancel discards the
 *       buffer, as documented).</li>
 * </ul>
 * Cancelling single operations racing a match is {@link AsyncChannelLincheckTest}'s.
 */
class AsyncChannelCloseLincheckTest {

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
        /** Set before the channel is closed (cancelled): so a failure seen after it may be expected. */
        private volatile boolean closing;
        private volatile boolean cancelling;

        Ops(AsyncChannel<Integer> channel) {
            this.channel = channel;
        }

        /** A send (its element) or a receive (element null) and its awaitable. */
        private static final class Call {
            final Integer element;
            final Awaitable<?> op;
            final AtomicInteger callbacks = new AtomicInteger();

            Call(Integer element, Awaitable<?> op) {
                this.element = element;
                this.op = op;
            }

            boolean isSend() {
                return element != null;
            }

            @Override
            public String toString() {
                return (isSend() ? "send(" + element + ")" : "receive") + " " + op.outcomeOrNull();
            }
        }

        private void start(Call c) {
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
            start(new Call(e, channel.sendAsync(e)));
        }

        @Operation
        public void trySend() {
            Integer e = nextElement.incrementAndGet();
            try {
                if (channel.trySend(e)) {
                    triedSent.add(e);
                }
            } catch (Throwable t) {
                expectClosedFailure("trySend(" + e + ")", t, ClosedSendChannelException.class);
            }
        }

        @Operation
        public void receive() {
            start(new Call(null, channel.receiveAsync()));
        }

        @Operation
        public void next() {
            start(new Call(null, channel.nextAsync()));
        }

        @Operation
        public void tryReceive() {
            try {
                Integer e = channel.tryReceive();
                if (e != null) {
                    triedReceived.add(e);
                }
            } catch (Throwable t) {
                expectClosedFailure("tryReceive()", t, ClosedReceiveChannelException.class);
            }
        }

        @Operation
        public void close() {
            closing = true;
            channel.close();
        }

        @Operation
        public void cancelChannel() {
            cancelling = true;
            channel.cancel();
        }

        /** {@code t} must be {@code closed} after a close, or a cancellation after a cancel. */
        private void expectClosedFailure(String what, Throwable t, Class<? extends Throwable> closed) {
            boolean expected = (closing && closed.isInstance(t)) || (cancelling && t instanceof CancellationException);
            if (!expected) {
                problems.add(what + " threw " + t + " (closing=" + closing + ", cancelling=" + cancelling + ")");
            }
        }

        @Validate
        public void everyExitIsRight() {
            List<String> found = new ArrayList<>();
            List<Call> all = calls();
            List<Integer> received = new ArrayList<>(triedReceived);
            for (;;) { // the drain: also completes senders waiting for room or a receiver
                Integer e;
                try {
                    e = channel.tryReceive();
                } catch (Throwable t) {
                    expectClosedFailure("the drain", t, ClosedReceiveChannelException.class);
                    break;
                }
                if (e == null) {
                    break;
                }
                received.add(e);
            }
            boolean ended = closing || cancelling;
            Set<Integer> sent = new TreeSet<>(triedSent);
            Set<Integer> failedSends = new HashSet<>();
            for (Call c : all) {
                Outcome<?> o = c.op.outcomeOrNull();
                if (o == null) {
                    if (c.isSend() || ended) {
                        found.add(c + " still waits after the drain");
                    }
                    continue;
                }
                if (c.callbacks.get() != 1) {
                    found.add(c + ": callback ran " + c.callbacks.get() + " times");
                }
                switch (o) {
                    case Outcome.Success<?> s when c.isSend() -> sent.add(c.element);
                    case Outcome.Success<?> s -> {
                        if (s.value() instanceof Next<?> n && !n.hasValue()) {
                            boolean expected = (closing && n instanceof Next.End<?> end && end.cancellation() == null)
                                    || (cancelling && n instanceof Next.End<?> end2 && end2.cancellation() != null);
                            if (!expected) {
                                found.add(c + " ended unexpectedly");
                            }
                        } else {
                            received.add((Integer) (s.value() instanceof Next.Value<?> v ? v.value() : s.value()));
                        }
                    }
                    case Outcome.Failure<?> f -> {
                        if (c.isSend()) {
                            failedSends.add(c.element);
                        }
                        expectClosedFailure(c.toString(), f.error(),
                                c.isSend() ? ClosedSendChannelException.class : ClosedReceiveChannelException.class);
                    }
                    case Outcome.Cancelled<?> x -> {
                        if (c.isSend()) {
                            failedSends.add(c.element);
                        }
                        if (!cancelling) {
                            found.add(c + " cancelled without a cancel()");
                        }
                    }
                }
            }
            found.addAll(problems); // the operations' own, and the checks above that went through expectClosedFailure
            Set<Integer> distinct = new TreeSet<>(received);
            if (distinct.size() != received.size()) {
                found.add("an element was received twice: " + received);
            }
            if (!sent.containsAll(distinct)) {
                found.add("received " + received + " but only " + sent + " were sent");
            }
            failedSends.retainAll(distinct);
            if (!failedSends.isEmpty()) {
                found.add("the elements of failed sends were received: " + failedSends);
            }
            if (!cancelling && !distinct.equals(sent)) {
                found.add("sent " + sent + " but received " + received + " (no cancel)");
            }
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

    /** Model checking of hand-written mixes: the races that a close or a cancel can meet. */
    private static void modelCheck(Class<? extends Ops> ops) {
        new ModelCheckingOptions()
                .iterations(0)
                .invocationsPerIteration(200)
                .verifier(EpsilonVerifier.class)
                // A close while a send and a receive meet, and a receive arrives late.
                .addCustomScenario(Scenarios.parallel(ops, "send; receive", "next", "close"))
                // A close while sends wait (their elements must still be received) and a try drains.
                .addCustomScenario(Scenarios.parallel(ops, "send; send", "close; tryReceive", "trySend; next"))
                // A cancel while sends and receives wait, match and try.
                .addCustomScenario(Scenarios.parallel(ops, "send; tryReceive", "receive; trySend", "cancelChannel"))
                // A close and a cancel racing each other and a waiting send and receive.
                .addCustomScenario(Scenarios.parallel(ops, "send; close", "next; receive", "cancelChannel"))
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
                    .verifier(EpsilonVerifier.class)
                    .check(ops);
        }
    }
}
