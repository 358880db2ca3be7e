package dev.corobridge.demo.journal;

import java.util.concurrent.atomic.AtomicLong;

import dev.corobridge.bridge.HopTrace;
import dev.corobridge.bridge.Task;
import dev.corobridge.demo.board.Change;
import dev.corobridge.demo.changelog.LogPosition;

/** Appends for tests of a journal used alone (no sink started): each append with an id of its own. */
final class TestAppends {

    private static final AtomicLong IDS = new AtomicLong();

    private TestAppends() {
    }

    static Task<LogPosition> append(Journal journal, Change change) {
        return append(journal, change, null);
    }

    static Task<LogPosition> append(Journal journal, Change change, HopTrace trace) {
        return journal.append(change, IDS.incrementAndGet(), trace);
    }
}
