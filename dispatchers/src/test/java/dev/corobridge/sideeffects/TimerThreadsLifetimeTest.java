package dev.corobridge.sideeffects;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * corobridge's shared timer threads — the task timeout timer and the pumps' stall watchdog — are
 * daemons, start with their first use (see {@link ClassLoadSideEffectsTest} for class loading),
 * and end once they have nothing left to time, instead of living as long as the JVM; a later use
 * starts a new one.
 */
class TimerThreadsLifetimeTest {

    @Test
    void timerThreadsAreDaemonsAndEndWhenIdle() throws Exception {
        ChildJvm.Result r = ChildJvm.run(TimerThreadsProbe.class, List.of(), List.of());
        assertEquals(0, r.exitCode(), r.err());
        assertEquals(List.of(
                "timeout true",
                "corobridge-task-timer daemon=true ended=true",
                "watchdog running with the pump true",
                "corobridge-stall-watchdog daemon=true ended=true",
                "timeout again true"), r.out(), r.err());
    }
}
