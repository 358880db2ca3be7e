package dev.corobridge.bridge;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A failed task awaited several times: every awaiter gets its own exception carrying its own hop
 * trace, and the exception the task failed with is never changed (it may be shared, cached, or
 * awaited by someone else at the same moment).
 */
public class AwaitedFailureTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private final ExecutorService io = Executors.newSingleThreadExecutor(r -> new Thread(r, "fake-io"));

    @AfterEach
    void tearDown() {
        io.shutdownNow();
    }

    /** Only an {@code int} constructor: no faithful copy can be made. */
    public static final class CodedFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public CodedFailure(int code) {
            super("failure code " + code);
        }
    }

    /** Has the usual constructors, but also state that a copy through them would lose. */
    public static final class StatefulFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final String detail;

        public StatefulFailure(String message) {
            this(message, "none");
        }

        public StatefulFailure(String message, String detail) {
            super(message);
            this.detail = detail;
        }

        public String detail() {
            return detail;
        }
    }

    /** Its constructor changes the message: a copy would not say the same thing. */
    public static final class PrefixedFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public PrefixedFailure(String message, Throwable cause) {
            super("prefixed: " + message, cause);
        }
    }

    private <T> Task<T> failedOnIo(Throwable error) throws Exception {
        Task<T> t = Task.start(io, () -> {
            if (error instanceof Exception e) {
                throw e;
            }
            throw (Error) error;
        });
        CountDownLatch done = new CountDownLatch(1);
        t.onComplete(o -> done.countDown());
        assertTrue(done.await(WAIT.toSeconds(), TimeUnit.SECONDS));
        return t;
    }

    private static Object awaitAsFirst(Task<?> t) throws Exception {
        return t.join(WAIT);
    }

    private static Object awaitAsSecond(Task<?> t) throws Exception {
        return t.join(WAIT);
    }

    private static List<HopTraceException> traces(Throwable e) {
        return Arrays.stream(e.getSuppressed()).filter(s -> s instanceof HopTraceException)
                .map(s -> (HopTraceException) s).toList();
    }

    private static boolean stackMentions(Throwable e, String method) {
        return Arrays.stream(e.getStackTrace()).anyMatch(f -> f.getMethodName().equals(method));
    }

    @Test
    void twoAwaitersOfOneFailedTaskEachSeeTheirOwnTraceAndTheOriginalIsUntouched() throws Exception {
        IllegalArgumentException original = new IllegalArgumentException("bad note");
        StackTraceElement[] originalStack = original.getStackTrace().clone();
        Task<Object> t = failedOnIo(original);

        IllegalArgumentException first = assertThrows(IllegalArgumentException.class, () -> awaitAsFirst(t));
        IllegalArgumentException second = assertThrows(IllegalArgumentException.class, () -> awaitAsSecond(t));

        assertNotSame(first, second, "each awaiter gets an exception of its own");
        for (IllegalArgumentException e : List.of(first, second)) {
            assertSame(IllegalArgumentException.class, e.getClass(), "same type: catch clauses still match");
            assertEquals("bad note", e.getMessage());
            assertSame(original, e.getCause(), "the original travels as the cause");
            assertArrayEquals(originalStack, e.getStackTrace(), "the original stack (where it was thrown)");
            assertEquals(1, traces(e).size(), Arrays.toString(e.getSuppressed()));
            assertTrue(traces(e).get(0).getMessage().contains("fake-io"), traces(e).get(0).getMessage());
        }
        HopTraceException firstTrace = traces(first).get(0);
        HopTraceException secondTrace = traces(second).get(0);
        assertTrue(stackMentions(firstTrace, "awaitAsFirst") && !stackMentions(firstTrace, "awaitAsSecond"),
                "the first awaiter's trace shows the first await site");
        assertTrue(stackMentions(secondTrace, "awaitAsSecond") && !stackMentions(secondTrace, "awaitAsFirst"),
                "the second awaiter's trace shows its own await site, not the first one's");

        assertEquals(0, original.getSuppressed().length, "the task's exception must not be changed");
        assertSame(null, original.getCause());
        assertArrayEquals(originalStack, original.getStackTrace());
    }

    @Test
    void concurrentAwaitersGetDistinctExceptionsAndNeverTouchTheOriginal() throws Exception {
        IllegalStateException original = new IllegalStateException("shared failure");
        Task<Object> t = failedOnIo(original);
        int awaiters = 16;
        int rounds = 50;
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        List<Throwable> problems = Collections.synchronizedList(new ArrayList<>());
        for (int round = 0; round < rounds; round++) {
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < awaiters; i++) {
                Thread th = Thread.ofVirtual().unstarted(() -> {
                    try {
                        start.await();
                        t.join(WAIT);
                        problems.add(new AssertionError("await returned normally"));
                    } catch (IllegalStateException e) {
                        synchronized (seen) {
                            if (!seen.add(e) || traces(e).size() != 1 || e.getCause() != original) {
                                problems.add(new AssertionError("shared or malformed: " + e, e));
                            }
                        }
                    } catch (Throwable e) {
                        problems.add(e);
                    }
                });
                threads.add(th);
                th.start();
            }
            start.countDown();
            for (Thread th : threads) {
                th.join(WAIT.toMillis());
            }
        }
        assertEquals(List.of(), problems);
        assertEquals(awaiters * rounds, seen.size());
        assertEquals(0, original.getSuppressed().length, "the task's exception must not be changed");
    }

    /** The copy carries what the original had suppressed (a close that failed after the error), before its own trace. */
    @Test
    void anAwaitersCopyCarriesTheOriginalsSuppressedExceptions() throws Exception {
        IllegalArgumentException original = new IllegalArgumentException("bad note");
        IllegalStateException closeFailed = new IllegalStateException("close failed");
        original.addSuppressed(closeFailed);
        Task<Object> t = failedOnIo(original);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> awaitAsFirst(t));
        assertNotSame(original, e);
        assertSame(closeFailed, e.getSuppressed()[0], Arrays.toString(e.getSuppressed()));
        assertEquals(1, traces(e).size(), Arrays.toString(e.getSuppressed()));
        assertEquals(1, original.getSuppressed().length, "the task's exception must not be changed");
    }

    @Test
    void anExceptionWithoutACopyableConstructorIsRethrownUnchanged() throws Exception {
        CodedFailure original = new CodedFailure(42);
        Task<Object> t = failedOnIo(original);
        CodedFailure e = assertThrows(CodedFailure.class, () -> awaitAsFirst(t));
        assertSame(original, e, "no faithful copy: the original itself, as it was");
        assertEquals(0, original.getSuppressed().length, "and it is not changed");
        assertSame(original, assertThrows(CodedFailure.class, () -> awaitAsSecond(t)));
        assertEquals(0, original.getSuppressed().length);
        assertTrue(t.getTrace().getHops().size() >= 1, "the hops are still available from trace()");
    }

    @Test
    void anExceptionWithStateOfItsOwnIsNotCopied() throws Exception {
        StatefulFailure original = new StatefulFailure("stateful", "the detail that matters");
        Task<Object> t = failedOnIo(original);
        StatefulFailure e = assertThrows(StatefulFailure.class, () -> awaitAsFirst(t));
        assertSame(original, e);
        assertEquals("the detail that matters", e.detail());
        assertEquals(0, original.getSuppressed().length);
    }

    @Test
    void anExceptionWhoseConstructorRewritesTheMessageIsNotCopied() throws Exception {
        PrefixedFailure original = new PrefixedFailure("x", null);
        Task<Object> t = failedOnIo(original);
        PrefixedFailure e = assertThrows(PrefixedFailure.class, () -> awaitAsFirst(t));
        assertSame(original, e);
        assertEquals("prefixed: x", e.getMessage());
        assertEquals(0, original.getSuppressed().length);
    }

    @Test
    void aCheckedFailureIsWrappedPerAwaiterAndTheWrapperCarriesTheTrace() throws Exception {
        IOException original = new IOException("disk gone");
        Task<Object> t = failedOnIo(original);
        CompletionException first = assertThrows(CompletionException.class, () -> awaitAsFirst(t));
        CompletionException second = assertThrows(CompletionException.class, () -> awaitAsSecond(t));
        assertNotSame(first, second);
        assertSame(original, first.getCause());
        assertSame(original, second.getCause());
        assertTrue(stackMentions(traces(first).get(0), "awaitAsFirst"));
        assertTrue(stackMentions(traces(second).get(0), "awaitAsSecond"));
        assertEquals(0, original.getSuppressed().length, "the task's exception must not be changed");
    }

    /**
     * A task whose body failed with a {@link CompletionException} (it joined another task that
     * failed with a checked exception) is awaited with one wrapper around the real failure, as
     * {@code CompletableFuture.join()} does: the per-awaiter copy used to wrap the wrapper, one
     * level more at every task boundary ({@code e.getCause() instanceof IOException} was false).
     */
    @Test
    void aCompletionExceptionIsNotWrappedAgainAtEveryTaskBoundary() throws Exception {
        IOException original = new IOException("disk gone");
        Task<Object> inner = failedOnIo(original);
        Task<Object> outer = Task.startVirtual(inner::join);
        CompletionException e = assertThrows(CompletionException.class, () -> outer.join(WAIT));
        assertSame(original, e.getCause(), String.valueOf(e.getCause()));
        CompletionException again = assertThrows(CompletionException.class,
                () -> Task.startVirtual(outer::join).join(WAIT));
        assertSame(original, again.getCause(), String.valueOf(again.getCause()));

        Task<Object> wrapped = failedOnIo(new CompletionException(original));
        CompletionException first = assertThrows(CompletionException.class, () -> awaitAsFirst(wrapped));
        assertSame(original, first.getCause());
        assertEquals(1, traces(first).size(), "the wrapper carries this awaiter's hop trace");
        assertTrue(stackMentions(traces(first).get(0), "awaitAsFirst"));
        assertEquals(0, original.getSuppressed().length, "the task's exception must not be changed");
    }

    @Test
    void anErrorIsCopiedLikeAnyOtherFailure() throws Exception {
        AssertionError original = new AssertionError("invariant broken");
        Task<Object> t = failedOnIo(original);
        AssertionError first = assertThrows(AssertionError.class, () -> awaitAsFirst(t));
        assertNotSame(original, first);
        assertSame(original, first.getCause());
        assertEquals(1, traces(first).size());
        assertEquals(0, original.getSuppressed().length);
    }

    @Test
    void aFailureWithoutHopsIsRethrownAsItIs() throws Exception {
        IllegalArgumentException original = new IllegalArgumentException("no trace to add");
        Promise<String> p = new Promise<>();
        p.fail(original);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> p.join(WAIT));
        assertSame(original, e, "nothing to attach: no copy needed");
        assertEquals(0, original.getSuppressed().length);
        assertInstanceOf(IllegalArgumentException.class, e);
    }
}
