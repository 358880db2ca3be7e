package dev.corobridge.test;

import java.util.List;
import java.util.Objects;

/**
 * A test left work running: coroutines, queued pump tasks, pending timers, open ring files or ring
 * operations in flight. {@link CorobridgeExtension} throws it after the test (and after its
 * {@code @AfterEach} methods), once it has cancelled and shut all of it down, so that the next test
 * starts clean. If the test itself failed, JUnit reports this as suppressed by that failure.
 *
 * <p>The message lists every leak, one per line, for example:
 * <pre>
 * Test 'NotesTest &gt; refreshes()' left work running; a test must finish or cancel what it starts:
 *   - 1 coroutine still running on Dispatchers.Main (pump 'ui'): "poller":StandaloneCoroutine{Active}@5f2a1b0c
 *   - 1 timer pending on pump 'ui' (advanceUntilIdle() fires it; or cancel it)
 * </pre>
 *
 * <p>An {@link AssertionError}, so that test frameworks and IDEs report a failed test, not an
 * error in the framework. Immutable.
 */
public final class LeakedWorkError extends AssertionError {

    private static final long serialVersionUID = 1L;

    private final String testName;
    private final List<String> leaks;

    LeakedWorkError(String testName, List<String> leaks) {
        super(message(testName, leaks));
        this.testName = Objects.requireNonNull(testName, "testName");
        this.leaks = List.copyOf(leaks);
        if (this.leaks.isEmpty()) {
            throw new IllegalArgumentException("a LeakedWorkError needs at least one leak");
        }
    }

    /** The test, as {@code Class > display name}. */
    public String testName() {
        return testName;
    }

    /** What was left running, one entry per kind (coroutines, tasks, timers, files, operations). */
    public List<String> leaks() {
        return leaks;
    }

    private static String message(String testName, List<String> leaks) {
        StringBuilder sb = new StringBuilder("Test '").append(testName)
                .append("' left work running; a test must finish or cancel what it starts:");
        for (String leak : leaks) {
            sb.append("\n  - ").append(leak);
        }
        return sb.toString();
    }
}
