package dev.corobridge.examples;

import dev.corobridge.pump.Affine;
import dev.corobridge.pump.MessagePump;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A board of notes owned by a pump, for the test-kit README's Java test. Pump-confined: its
 * methods are called on the pump thread (the {@link Affine} holder checks it).
 */
public final class Board {

    private final MessagePump ui;
    private final Affine<List<String>> notes;

    public Board(MessagePump ui) {
        this.ui = ui;
        this.notes = Affine.of(ui, new ArrayList<>());
    }

    /** Adds {@code note} on the pump after {@code delay}. */
    public void addLater(String note, Duration delay) {
        ui.schedule(() -> notes.get().add(note), delay);
    }

    /** A copy of the notes. */
    public List<String> notes() {
        return notes.read(List::copyOf);
    }
}
