package dev.corobridge.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Kotlin {@code sequence {}} / {@code iterator {}} generators consumed from Java, lazily. */
class GeneratorsTest {

    @Test
    void anInfiniteKotlinSequenceIsALazyJavaStream() {
        AtomicInteger steps = new AtomicInteger();
        List<Long> first = Generators.stream(StreamKotlinHelpers.squares(steps)).limit(5).toList();
        assertEquals(List.of(1L, 4L, 9L, 16L, 25L), first);
        assertEquals(5, steps.get(), "the generator ran only as far as the stream pulled");
        long firstAbove100 = Generators.stream(StreamKotlinHelpers.squares(new AtomicInteger()))
                .filter(x -> x > 100).findFirst().orElseThrow();
        assertEquals(121L, firstAbove100);
    }

    @Test
    void aKotlinSequenceIsIterableAndAKotlinIteratorIsAJavaIterator() {
        AtomicInteger steps = new AtomicInteger();
        List<Long> small = new ArrayList<>();
        for (long x : Generators.iterable(StreamKotlinHelpers.squares(steps))) {
            if (x > 50) {
                break;
            }
            small.add(x);
        }
        assertEquals(List.of(1L, 4L, 9L, 16L, 25L, 36L, 49L), small);
        assertEquals(8, steps.get());

        Iterator<Integer> it = StreamKotlinHelpers.countdown(3); // already a java.util.Iterator
        assertEquals(List.of(3, 2, 1), Generators.stream(it).toList());
        assertThrows(java.util.NoSuchElementException.class, it::next);
        assertThrows(NullPointerException.class, () -> Generators.stream((Iterator<String>) null));
    }
}
