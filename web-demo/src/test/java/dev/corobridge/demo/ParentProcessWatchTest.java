package dev.corobridge.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

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
            Thread.sleep(200);
            assertThat(stops).as("no stop while the parent lives").hasValue(0);
            assertThat(watch.stopping()).isFalse();

            parent.destroyForcibly().waitFor();
            assertThat(stopped.await(30, TimeUnit.SECONDS)).as("the stop ran after the parent's end").isTrue();
            Thread.sleep(200);
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
        Thread.sleep(100);
        watch.close();
        parent.destroyForcibly().waitFor();
        Thread.sleep(500);
        assertThat(stops).hasValue(0);
        assertThat(watch.stopping()).isFalse();
        assertThat(watch.start()).as("start after close is a no-op").isSameAs(watch);
        Thread.sleep(200);
        assertThat(stops).hasValue(0);
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
        watch.start();
        watch.start();
        try {
            parent.destroyForcibly().waitFor();
            assertThat(stopped.await(30, TimeUnit.SECONDS)).isTrue();
            Thread.sleep(300);
            assertThat(stops).hasValue(1);
        } finally {
            watch.close();
        }
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
