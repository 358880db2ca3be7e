package dev.corobridge.demo.journal;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

import dev.corobridge.demo.changelog.ChangeSink;
import dev.corobridge.demo.changelog.LoggedChange;

/**
 * A sink that writes down what a journal delivers: one line per call, {@code replay} or
 * {@code apply}, with each change's board id and append id and whether it came on the journal's ring.
 */
final class RecordingSink implements ChangeSink {

    final List<String> calls = new CopyOnWriteArrayList<>();
    private final Journal journal;

    RecordingSink(Journal journal) {
        this.journal = journal;
    }

    @Override
    public void replay(List<LoggedChange> changes) {
        calls.add("replay " + describe(changes));
    }

    @Override
    public void apply(List<LoggedChange> changes) {
        calls.add("apply " + describe(changes) + (journal.ring().isCurrentThread() ? " on the ring"
                : " on " + Thread.currentThread().getName()));
    }

    private static String describe(List<LoggedChange> changes) {
        return changes.stream().map(c -> c.change().boardId() + "#" + c.appendId())
                .collect(Collectors.joining(",", "[", "]"));
    }
}
