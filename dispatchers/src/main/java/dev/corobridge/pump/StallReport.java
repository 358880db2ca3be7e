package dev.corobridge.pump;

import java.time.Duration;
import java.util.List;

/**
 * A task ran on the pump thread for longer than the configured stall threshold: the pump could
 * not dispatch anything else meanwhile (the JVM cousin of an "application not responding" report).
 *
 * @param pumpName   the pump
 * @param threadName the pump thread
 * @param blockedFor how long the task had been running when it was seen (a lower bound)
 * @param stack      the pump thread's stack at that moment: where it was blocked
 * @param stallNumber this pump's stall count including this one
 */
public record StallReport(String pumpName, String threadName, Duration blockedFor,
                          List<StackTraceElement> stack, long stallNumber) {

    public StallReport {
        stack = List.copyOf(stack);
    }

    /** A multi-line description with the stack, as logged by default. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder()
                .append("MessagePump '").append(pumpName).append("' stalled: a task has run on thread '")
                .append(threadName).append("' for at least ").append(blockedFor.toMillis())
                .append(" ms (stall #").append(stallNumber)
                .append("). Move blocking or long work off the pump. Pump thread stack:");
        for (StackTraceElement e : stack) {
            sb.append("\n\tat ").append(e);
        }
        return sb.toString();
    }
}
