package dev.corobridge.stream;

import dev.corobridge.bridge.Awaitable;

/** Calls of Java-face methods hidden from Kotlin, for the Kotlin face of this package. */
final class JavaFaces {

    private JavaFaces() {
    }

    static <T> Awaitable<Next<T>> next(EventStream<T> stream) {
        return stream.next();
    }
}
