package dev.corobridge.sync;

import dev.corobridge.bridge.Awaitable;
import dev.corobridge.bridge.Outcome;
import dev.corobridge.lincheck.Scenarios;
import dev.corobridge.stream.Next;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.jetbrains.lincheck.datastructures.Validate;
import org.jetbrains.lincheck.datastructures.verifier.EpsilonVerifier;
import org.junit.jupiter.api.Test;

/**
 * Lincheck model checking and stress of {@link AsyncChannel}'s Java face: no element is lost or
 * duplicated under cancellation. Threads send (each element unique), try to send, receive (with
 * {@code receive()} and {@code next()}), try to receive, and cancel the oldest pending-or-matched
 * send or receive, on a rendezvous channel and on a channel with a buffer of one.
 *
 * <p>Results are not checked for linearizability (the elements are numbered in the order the
 * operations run, which no sequential run reproduces: the tests use Lincheck's
 * {@code EpsilonVerifier}); {@link Ops#elementsConserved()} checks after every interleaving:
 * <ul>
 *   <li>no receive waits while an element is buffered or a sender waits (a lost hand-over);</li>
 *   <li>every operation that ended ran its callback exactly once; a {@code cancel()} that returned
 *       {@code true} left it cancelled (nothing sent or received), one that returned {@code false}
 *       found it matched (it then completes normally); nothing else cancels or fails it;</li>
 *   <li>after draining the buffer with {@code tryReceive()} (which also takes from waiting
 *       senders): every send not withdrawn completed, and the elements received — by completed
 *       receives, {@code tryReceive()} and the drain — are exactly the elements sent (completed
 *       sends and successful {@code trySend}s), each once; a withdrawn send's element is never
 *       received.</li>
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
        private final AtomicReferenceArray<Integer> triedSent = new AtomicReferenceArray<>(64);
        private final AtomicReferenceArray<Integer> triedReceived = new AtomicReferenceArray<>(64);
        private final AtomicInteger tries = new AtomicInteger();

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

            /** The element a completed receive got. */
            Integer received() {
                Object v = ((Outcome.Success<?>) op.outcomeOrNull()).value();
                return v instanceof Next.Value<?> n ? (Integer) n.value() : (Integer) v;
            }

            @Override
            public String toString() {
                return (isSend() ? "send(" + element + ")" : "receive") + " " + op.outcomeOrNull() + " cancel()=" + cancelled;
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
        @SuppressWarnings("deprecation")
        public void send() {
            Integer e = nextElement.incrementAndGet();
            start(new Call(e, channel.sendAsync(e)));
        }

        @Operation
        public void trySend() {
            Integer e = nextElement.incrementAndGet();
            if (channel.trySend(e)) {
                triedSent.set(tries.getAndIncrement(), e);
            }
        }

        @Operation
        @SuppressWarnings("deprecation")
        public void receive() {
            start(new Call(null, channel.receiveAsync()));
        }

        @Operation
        @SuppressWarnings("deprecation")
        public void next() {
            start(new Call(null, channel.nextAsync()));
        }

        @Operation
        public void tryReceive() {
            Integer e = channel.tryReceive();
            if (e != null) {
                triedReceived.set(tries.getAndIncrement(), e);
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
                    c.cancelled = c.op.cancel();
                    return;
                }
            }
        }

        @Validate
        public void elementsConserved() {
            List<String> problems = new ArrayList<>();
            List<Call> all = calls();
            boolean receiverWaits = all.stream().anyMatch(c -> !c.isSend() && !c.op.isDone());
            boolean senderWaits = all.stream().anyMatch(c -> c.isSend() && !c.op.isDone());
            if (receiverWaits && (senderWaits || !channel.isEmpty())) {
                problems.add("a receive waits while " + (senderWaits ? "a send waits" : "an element is buffered"));
            }
            List<Integer> received = new ArrayList<>();
            for (int i = 0, n = tries.get(); i < n; i++) {
                if (triedReceived.get(i) != null) {
                    received.add(triedReceived.get(i));
                }
            }
            for (Integer e; (e = channel.tryReceive()) != null; ) {
                received.add(e); // the drain: also completes senders waiting for room or a receiver
            }
            Set<Integer> sent = new TreeSet<>();
            Set<Integer> withdrawn = new HashSet<>();
            for (int i = 0, n = tries.get(); i < n; i++) {
                if (triedSent.get(i) != null) {
                    sent.add(triedSent.get(i));
                }
            }
            for (Call c : all) {
                Outcome<?> o = c.op.outcomeOrNull();
                Boolean cancelled = c.cancelled;
                if (o == null) {
                    if (c.isSend()) {
                        problems.add(c + " still waits after the drain");
                    }
                    continue;
                }
                if (c.callbacks.get() != 1) {
                    problems.add(c + ": callback ran " + c.callbacks.get() + " times");
                }
                if (o.isCancelled() != Boolean.TRUE.equals(cancelled)) {
                    problems.add(c + ": outcome and cancel() disagree");
                }
                if (o.isSuccess()) {
                    if (c.isSend()) {
                        sent.add(c.element);
                    } else {
                        received.add(c.received());
                    }
                } else if (o.isCancelled()) {
                    if (c.isSend()) {
                        withdrawn.add(c.element);
                    }
                } else {
                    problems.add(c + " failed");
                }
            }
            Set<Integer> distinct = new TreeSet<>(received);
            if (distinct.size() != received.size()) {
                problems.add("an element was received twice: " + received);
            }
            if (!distinct.equals(sent)) {
                problems.add("sent " + sent + " but received " + received);
            }
            withdrawn.retainAll(distinct);
            if (!withdrawn.isEmpty()) {
                problems.add("withdrawn sends were received: " + withdrawn);
            }
            if (!problems.isEmpty()) {
                throw new AssertionError(String.join("; ", problems) + "; calls " + all);
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
     * Model checking of hand-written scenarios only: the kotlinx channel underneath is large, so an
     * interleaving costs milliseconds, and the random mixes run in {@link #stress()}.
     */
    private static void modelCheck(Class<? extends Ops> ops) {
        new ModelCheckingOptions()
                .iterations(0)
                .invocationsPerIteration(100)
                .verifier(EpsilonVerifier.class)
                // A receive matched while it is being cancelled.
                .addCustomScenario(Scenarios.parallel(ops, "receive", "send", "cancelReceive"))
                // Sends matched (or buffered) while one is being cancelled; next() and tryReceive take.
                .addCustomScenario(Scenarios.parallel(ops, "send; send", "next", "cancelSend; tryReceive"))
                // trySend and tryReceive against a waiting receive that is being cancelled.
                .addCustomScenario(Scenarios.parallel(ops, "next; trySend", "cancelReceive; tryReceive", "trySend"))
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
