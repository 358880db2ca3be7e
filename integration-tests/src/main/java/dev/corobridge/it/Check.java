package dev.corobridge.it;

import java.util.Objects;
import java.util.function.BooleanSupplier;

/** Assertions without a test framework, so the scenarios also run in the client container. */
public final class Check {
    private Check() {
    }

    public static void that(boolean condition, String message, Object... args) {
        if (!condition) {
            throw new AssertionError(args.length == 0 ? message : String.format(message, args));
        }
    }

    public static void equal(Object actual, Object expected, String what) {
        if (!Objects.equals(actual, expected)) {
            throw new AssertionError(what + ": expected <" + expected + "> but was <" + actual + ">");
        }
    }

    /** Polls until true or the deadline passes. */
    public static void eventually(long timeoutMillis, BooleanSupplier condition, String message) {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("after " + timeoutMillis + " ms: " + message);
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted: " + message, e);
            }
        }
    }
}
