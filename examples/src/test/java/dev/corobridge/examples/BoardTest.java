package dev.corobridge.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.corobridge.pump.ManualPump;
import dev.corobridge.test.CorobridgeTest;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

// snippet-begin: test-kit-java
@CorobridgeTest(pumpName = "board")
class BoardTest {
    @Test
    void showsTheNoteAfterASecond(ManualPump ui) {
        Board board = new Board(ui);
        board.addLater("hello", Duration.ofSeconds(1));
        ui.advanceTimeBy(Duration.ofSeconds(1));          // no sleeping: the clock is the test's
        assertEquals(List.of("hello"), board.notes());
    }
}
// snippet-end: test-kit-java
