package dev.corobridge.sideeffects;

import dev.corobridge.bridge.Task;
import dev.corobridge.bridge.TaskTimeoutException;
import dev.corobridge.pump.MessagePump;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Run by {@link TimerThreadsLifetimeTest} in a JVM of its own (no other test's timeouts pending):
 * makes corobridge start its shared timer threads — a task timeout, a pump's stall watchdog — then
 * lets them go idle and prints, per thread, {@code <name> daemon=<bool> ended=<bool>}, waiting up
 * to 30 s for it to end; finally whether a timeout still works once the timer thread has ended.
 */
public final class TimerThreadsProbe {

    private static final long WAIT_SECONDS = 30;

    private TimerThreadsProbe() {
    }

    public static void main(String[] args) throws Exception {
        // A task timeout: the timer thread runs it, then has nothing left to do.
        System.out.println("timeout " + timesOut());
        report("corobridge-task-timer");

        // A pump with the default stall threshold (1 s) is sampled by the watchdog while it runs.
        MessagePump pump = MessagePump.start("probe-pump");
        CountDownLatch ran = new CountDownLatch(1);
        pump.execute(ran::countDown);
        ran.await(WAIT_SECONDS, TimeUnit.SECONDS);
        Thread watchdog = find("corobridge-stall-watchdog");
        System.out.println("watchdog running with the pump " + (watchdog != null));
        pump.shutdown(Duration.ofSeconds(5)).get(WAIT_SECONDS, TimeUnit.SECONDS);
        report("corobridge-stall-watchdog");

        // After the timer thread ended, a new timeout starts a new one.
        System.out.println("timeout again " + timesOut());
    }

    private static boolean timesOut() {
        Task<String> never = Task.from(new CompletableFuture<>());
        try {
            never.withTimeout(Duration.ofMillis(1)).join(Duration.ofSeconds(WAIT_SECONDS));
            return false;
        } catch (TaskTimeoutException e) {
            return true;
        } catch (Exception e) {
            return e.getCause() instanceof TaskTimeoutException;
        }
    }

    private static void report(String name) throws InterruptedException {
        Thread t = find(name);
        if (t == null) {
            System.out.println(name + " not found");
            return;
        }
        t.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS)); // bounded: on a leak the probe reports ended=false
        System.out.println(name + " daemon=" + t.isDaemon() + " ended=" + !t.isAlive());
    }

    private static Thread find(String name) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals(name)).findFirst().orElse(null);
    }
}
