package dev.corobridge.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ParentProcessWatch} against a real process standing in for the launcher (a {@code sleep}
 * started by the test): each way a watch ends (the parent exits, the watch is closed first, nothing
 * to watch) and its input checks.
 */
class ParentProcessWatchTest {

    private static final Duration PERIOD = Duration.ofMillis(20);

    private Process parent;

    private ProcessHandle startParent() throws Exception {
        parent = new ProcessBuilder("sleep", "600").start();
        return parent.toHandle();
    }

    @AfterEach
    void killParent() {
        if (parent != null) {
            parent.destroyForcibly();
        }
    }

    @Test
    void stopsOnceWhenTheParentExits() throws Exception {
        AtomicInteger stops = new AtomicInteger();
        CountDownLatch stopped = new CountDownLatch(1);
        ParentProcessWatch watch = new ParentProcessWatch(startParent(), PERIOD, () -> {
            stops.incrementAndGet();
            stopped.countDown();
        }).start();
        try {
            awaitChecks(watch, 5);
            assertThat(stops).as("no stop while the parent lives").hasValue(0);
            assertThat(watch.stopping()).isFalse();

            parent.destroyForcibly().waitFor();
            assertThat(stopped.await(30, TimeUnit.SECONDS)).as("the stop ran after the parent's end").isTrue();
            assertThat(watch.awaitEnd(Duration.ofSeconds(30))).as("the watch ended with the stop").isTrue();
            assertThat(stops).as("exactly once").hasValue(1);
            assertThat(watch.stopping()).isTrue();
        } finally {
            watch.close();
        }
    }

    @Test
    void aClosedWatchNeverStops() throws Exception {
        AtomicInteger stops = new AtomicInteger();
        ParentProcessWatch watch = new ParentProcessWatch(startParent(), PERIOD, stops::incrementAndGet).start();
        awaitChecks(watch, 1);
        watch.close();
        assertThat(watch.awaitEnd(Duration.ofSeconds(30))).as("close ends the watching thread").isTrue();
        long checks = watch.checks();
        parent.destroyForcibly().waitFor();
        assertThat(watch.start()).as("start after close is a no-op").isSameAs(watch);
        assertThat(watch.awaitEnd(Duration.ofSeconds(30))).isTrue();
        assertThat(watch.checks()).as("no check after close").isEqualTo(checks);
        assertThat(stops).hasValue(0);
        assertThat(watch.stopping()).isFalse();
    }

    @Test
    void aParentThatIsAlreadyGoneStopsAtOnce() throws Exception {
        ProcessHandle gone = startParent();
        parent.destroyForcibly().waitFor();
        CountDownLatch stopped = new CountDownLatch(1);
        ParentProcessWatch watch = new ParentProcessWatch(gone, Duration.ofHours(1), stopped::countDown).start();
        try {
            assertThat(stopped.await(30, TimeUnit.SECONDS)).as("checked before the first wait").isTrue();
        } finally {
            watch.close();
        }
    }

    @Test
    void startingTwiceWatchesOnce() throws Exception {
        AtomicInteger stops = new AtomicInteger();
        CountDownLatch stopped = new CountDownLatch(1);
        ParentProcessWatch watch = new ParentProcessWatch(startParent(), PERIOD, () -> {
            stops.incrementAndGet();
            stopped.countDown();
        });
        Set<Thread> before = watchingThreads();
        watch.start();
        watch.start();
        try {
            Set<Thread> started = watchingThreads();
            started.removeAll(before);
            assertThat(started).as("one watching thread").hasSize(1);
            parent.destroyForcibly().waitFor();
            assertThat(stopped.await(30, TimeUnit.SECONDS)).isTrue();
            assertThat(watch.awaitEnd(Duration.ofSeconds(30))).isTrue();
            assertThat(stops).hasValue(1);
        } finally {
            watch.close();
        }
    }

    /** Waits (30 s at most) until the watch has checked its parent at least {@code n} times. */
    private static void awaitChecks(ParentProcessWatch watch, long n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (watch.checks() < n) {
            assertThat(System.nanoTime()).as("%s checks within 30 s", n).isLessThan(deadline);
            Thread.onSpinWait();
            Thread.yield();
        }
    }

    private static Set<Thread> watchingThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("parent-watch") && t.isAlive())
                .collect(Collectors.toCollection(HashSet::new));
    }

    @Test
    void noneWatchesNothing() {
        ParentProcessWatch none = ParentProcessWatch.none();
        assertThat(none.start()).isSameAs(none);
        assertThat(none.stopping()).isFalse();
        none.close();
    }

    @Test
    void theLauncherIsThisJvmsParent() {
        assertThat(ParentProcessWatch.launcher()).isPresent();
        assertThat(ParentProcessWatch.launcher().orElseThrow().pid())
                .isEqualTo(ProcessHandle.current().parent().orElseThrow().pid());
    }

    @Test
    void refusesBadInput() {
        ProcessHandle self = ProcessHandle.current();
        assertThatThrownBy(() -> new ParentProcessWatch(self, Duration.ZERO, () -> { }))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("period");
        assertThatThrownBy(() -> new ParentProcessWatch(self, Duration.ofMillis(-1), () -> { }))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ParentProcessWatch(self, null, () -> { }))
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new ParentProcessWatch(self, PERIOD, null))
                .isInstanceOf(NullPointerException.class);
    }
}
