package dev.corobridge.pump;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * What the pump logs at or above a level, from construction to {@link #close()}: the pump logs
 * through {@code System.Logger}, which is {@code java.util.logging} in these tests. Holds the
 * pump's logger strongly while installed (a logger nobody references may be collected, and its
 * handler with it). Thread-safe.
 */
final class PumpLogCapture extends Handler implements AutoCloseable {

    private final Logger pumpLog = Logger.getLogger(MessagePump.class.getName());
    private final Level least;
    private final List<LogRecord> records = Collections.synchronizedList(new ArrayList<>());

    PumpLogCapture(Level least) {
        this.least = least;
        pumpLog.addHandler(this);
    }

    @Override
    public void publish(LogRecord r) {
        if (r.getLevel().intValue() >= least.intValue()) {
            records.add(r);
        }
    }

    /** The records captured so far, oldest first. */
    List<LogRecord> records() {
        synchronized (records) {
            return List.copyOf(records);
        }
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
        pumpLog.removeHandler(this);
    }
}
