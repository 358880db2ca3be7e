package dev.corobridge.demo.web;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.corobridge.bridge.Hop;
import dev.corobridge.bridge.HopTrace;
import java.util.StringJoiner;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The Hop-Trace header value: every hop as {@code context@thread[:note]}, control characters as {@code ?}. */
class HopTracesTest {

    /** The header's definition, written the slow way: each {@code \p{Cntrl}} (ASCII controls) replaced. */
    private static final Pattern CONTROL = Pattern.compile("\\p{Cntrl}");

    @Test
    void formatsEveryHopInOrder() throws Exception {
        HopTrace trace = new HopTrace();
        trace.record("http", "request");
        recordOn(trace, "worker-1", "pump", null);
        recordOn(trace, "worker-2", "ring", "");
        assertEquals("http@" + Thread.currentThread().getName() + ":request > pump@worker-1 > ring@worker-2",
                HopTraces.format(trace));
        assertEquals("", HopTraces.format(new HopTrace()));
    }

    @Test
    void controlCharactersBecomeQuestionMarksAndNothingElseChanges() throws Exception {
        HopTrace trace = new HopTrace();
        recordOn(trace, "th\u0000r\u001fe\u007fad", "pu\tmp", "no\r\nte \u0080\u00e9\u2028\ud83d\ude00 ~");
        recordOn(trace, "plain", "ring", "a:b > c");
        assertEquals(reference(trace), HopTraces.format(trace));
        assertEquals("pu?mp@th?r?e?ad:no??te \u0080\u00e9\u2028\ud83d\ude00 ~ > ring@plain:a:b > c", HopTraces.format(trace));
    }

    private static void recordOn(HopTrace trace, String threadName, String context, String note) throws InterruptedException {
        Thread t = new Thread(() -> trace.record(context, note), threadName);
        t.start();
        t.join();
    }

    private static String reference(HopTrace trace) {
        StringJoiner j = new StringJoiner(" > ");
        for (Hop h : trace.getHops()) {
            String step = h.context() + "@" + h.thread() + (h.note() == null || h.note().isEmpty() ? "" : ":" + h.note());
            j.add(CONTROL.matcher(step).replaceAll("?"));
        }
        return j.toString();
    }
}
