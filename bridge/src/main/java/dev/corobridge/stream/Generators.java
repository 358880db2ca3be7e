package dev.corobridge.stream;

import java.util.Iterator;
import java.util.Objects;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import kotlin.sequences.Sequence;

/**
 * Kotlin generators for Java. A Kotlin {@code sequence { yield(x) }} or {@code iterator { }} is a
 * suspending generator: its body runs only as far as the consumer pulls, suspending at each
 * {@code yield}. From Java, a {@code Sequence}'s {@code iterator()} and an {@code iterator { }}
 * already are {@link java.util.Iterator}s; this class makes them {@link Stream}s and
 * {@link Iterable}s (for {@code for}-each).
 *
 * <pre>{@code
 * // Kotlin: fun primes(): Sequence<Long> = sequence { ... yield(p) ... }
 * List<Long> first10 = Generators.stream(Primes.primes()).limit(10).toList();
 * for (long p : Generators.iterable(Primes.primes())) { if (p > 100) break; }
 * }</pre>
 *
 * <p>Laziness is kept: the stream pulls one element at a time from the generator (sequential,
 * ordered, not sized), so an infinite generator is fine with {@code limit} or {@code takeWhile}.
 * A generator runs on the consumer's thread and is not thread-safe: consume it from one thread.
 */
public final class Generators {

    private Generators() {
    }

    /** The elements of {@code sequence} as a lazy, sequential, ordered stream (one pass). */
    public static <T> Stream<T> stream(Sequence<? extends T> sequence) {
        return stream(Objects.requireNonNull(sequence, "sequence").iterator());
    }

    /** The remaining elements of {@code iterator} (e.g. a Kotlin {@code iterator { }}) as a lazy stream. */
    public static <T> Stream<T> stream(Iterator<? extends T> iterator) {
        Objects.requireNonNull(iterator, "iterator");
        return StreamSupport.stream(Spliterators.spliteratorUnknownSize(iterator, Spliterator.ORDERED), false);
    }

    /** {@code sequence} for a Java {@code for}-each loop (each loop iterates it anew, if the sequence allows). */
    public static <T> Iterable<T> iterable(Sequence<? extends T> sequence) {
        Objects.requireNonNull(sequence, "sequence");
        @SuppressWarnings("unchecked")
        Iterable<T> it = () -> (Iterator<T>) sequence.iterator();
        return it;
    }
}
