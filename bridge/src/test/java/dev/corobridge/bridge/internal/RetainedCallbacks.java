package dev.corobridge.bridge.internal;

/**
 * How many callback nodes an {@link OutcomeCell} keeps, withdrawn ones included: what the leak
 * tests of waiter churn measure, from any test package.
 */
public final class RetainedCallbacks {

    private RetainedCallbacks() {
    }

    /** The nodes of {@code cell}'s pending stack (0 once it is decided). */
    public static int of(OutcomeCell<?> cell) {
        return cell.retainedCallbacks();
    }
}
