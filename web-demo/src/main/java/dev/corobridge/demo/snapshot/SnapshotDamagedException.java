package dev.corobridge.demo.snapshot;

import java.io.IOException;

/** A snapshot file that is not an intact snapshot of a format this code reads: never trusted. */
public class SnapshotDamagedException extends IOException {

    public SnapshotDamagedException(String message) {
        super(message);
    }

    public SnapshotDamagedException(String message, Throwable cause) {
        super(message, cause);
    }
}
