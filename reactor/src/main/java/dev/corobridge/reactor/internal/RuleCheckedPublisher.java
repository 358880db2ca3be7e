package dev.corobridge.reactor.internal;

import java.util.Objects;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;

/**
 * Another library's {@link Publisher} with the Reactive Streams rules a flow's collector relies on
 * checked at its subscriber, for {@code FlowPublishers.toFlow}: a null element fails the stream
 * with a {@link NullPointerException} (rule 2.13; the subscriber also throws it, and cancels the
 * subscription) instead of ending the flow early without a word; a second {@code onSubscribe} is
 * cancelled and never requested on (rule 2.5); a null subscription or error is refused with a
 * {@code NullPointerException} (rule 2.13). Everything else passes through. Not public API.
 *
 * <p><b>Thread-safety.</b> The publisher is stateless. Each subscription's checker receives the
 * signals serially (rule 1.3) and is requested from any thread: its upstream subscription is
 * published through a volatile field.
 */
public final class RuleCheckedPublisher<T> implements Publisher<T> {

    private final Publisher<T> source;

    public RuleCheckedPublisher(Publisher<T> source) {
        this.source = Objects.requireNonNull(source, "source");
    }

    @Override
    public void subscribe(Subscriber<? super T> subscriber) {
        source.subscribe(new Checked<>(Objects.requireNonNull(subscriber, "subscriber")));
    }

    /** One subscription's checker between the source and the flow's subscriber. */
    private static final class Checked<T> implements Subscriber<T>, Subscription {
        private final Subscriber<? super T> downstream;
        private volatile Subscription upstream;
        /** A terminal signal went downstream (signal thread only). */
        private boolean done;

        Checked(Subscriber<? super T> downstream) {
            this.downstream = downstream;
        }

        @Override
        public void onSubscribe(Subscription s) {
            Objects.requireNonNull(s, "onSubscribe(null): a null subscription (Reactive Streams rule 2.13)");
            if (upstream != null) {
                s.cancel(); // rule 2.5: one subscription at a time
                return;
            }
            upstream = s;
            downstream.onSubscribe(this);
        }

        @Override
        public void onNext(T element) {
            if (element == null) {
                NullPointerException refused = new NullPointerException(
                        "the publisher signalled a null element, which Reactive Streams forbids (rule 2.13): " + upstream);
                if (!done) {
                    done = true;
                    upstream.cancel();
                    downstream.onError(refused);
                }
                throw refused;
            }
            if (!done) {
                downstream.onNext(element);
            }
        }

        @Override
        public void onError(Throwable error) {
            Objects.requireNonNull(error, "onError(null): a null error (Reactive Streams rule 2.13)");
            if (!done) {
                done = true;
                downstream.onError(error);
            }
        }

        @Override
        public void onComplete() {
            if (!done) {
                done = true;
                downstream.onComplete();
            }
        }

        @Override
        public void request(long n) {
            upstream.request(n);
        }

        @Override
        public void cancel() {
            upstream.cancel();
        }
    }
}
