package dev.corobridge.spring;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.corobridge.pump.MessagePump;
import dev.corobridge.ring.RingPool;
import dev.corobridge.ring.RingPoolConfig;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The meters both binders register, to the letter: type, name, tags and description of every one
 * (dashboards and alerts key on them, so a refactoring must not move one), and that they read the
 * live snapshot, not a copy taken at binding.
 */
class MeterBindersTests {

    private final MessagePump pump = MessagePump.start("meters-pump");
    private final RingPool pool = RingPool.start(RingPoolConfig.builder().name("meters-ring").rings(1)
            .ringSize(16).forceFallback(true).build());

    @AfterEach
    void stop() throws Exception {
        pump.shutdown();
        pool.shutdown();
        assertThat(pump.awaitTermination(Duration.ofSeconds(30))).isTrue();
        assertThat(pool.awaitTermination(Duration.ofSeconds(30))).isTrue();
    }

    @Test
    void thePumpBinderRegistersEveryMeterWithItsNameTagAndDescription() {
        MeterRegistry registry = new SimpleMeterRegistry();
        new PumpMeterBinder(pump).bindTo(registry);
        String tag = " [tag(pump=meters-pump)] ";
        assertThat(describe(registry)).containsExactlyInAnyOrder(
                "COUNTER corobridge.pump.dispatches" + tag + "tasks run on the pump",
                "COUNTER corobridge.pump.completions.delivered" + tag + "external completions delivered",
                "COUNTER corobridge.pump.timers.fired" + tag + "timers fired",
                "COUNTER corobridge.pump.wakeups" + tag + "unparks of the sleeping pump thread",
                "COUNTER corobridge.pump.parks" + tag + "times the pump thread went to sleep",
                "COUNTER corobridge.pump.spin.hits" + tag + "idle periods ended by work found while spinning",
                "COUNTER corobridge.pump.stalls" + tag + "tasks reported by the stall watchdog",
                "COUNTER corobridge.pump.task.failures" + tag + "tasks, timers and completions that threw",
                "COUNTER corobridge.pump.interrupts" + tag + "interrupts of the idle pump thread, cleared",
                "GAUGE corobridge.pump.queue.depth" + tag + "tasks and completions waiting",
                "GAUGE corobridge.pump.pending.timers" + tag + "timers scheduled, not fired or cancelled",
                "GAUGE corobridge.pump.live.coroutines" + tag + "live coroutines in the pump's scope",
                "GAUGE corobridge.pump.wakeups.per.dispatch" + tag
                        + "wake-ups per dispatch (below 1: posts share wake-ups)",
                "GAUGE corobridge.pump.running" + tag + "1 while the pump runs, 0 once shutdown has started",
                "GAUGE corobridge.pump.queue.latency.max" + tag + "longest sampled enqueue-to-run latency",
                "GAUGE corobridge.pump.queue.latency.p99" + tag + "99th percentile of sampled enqueue-to-run latency");
        assertThat(registry.get("corobridge.pump.queue.latency.max").timeGauge().baseTimeUnit())
                .isEqualTo(TimeUnit.SECONDS);
    }

    @Test
    void thePumpMetersReadTheLiveCounts() throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        new PumpMeterBinder(pump).bindTo(registry);
        double before = registry.get("corobridge.pump.dispatches").functionCounter().count();
        CountDownLatch ran = new CountDownLatch(3);
        for (int i = 0; i < 3; i++) {
            pump.execute(ran::countDown);
        }
        assertThat(ran.await(30, TimeUnit.SECONDS)).isTrue();
        // The dispatch is counted when the task returns: post a fourth and wait for it to have run.
        CountDownLatch fourth = new CountDownLatch(1);
        pump.execute(fourth::countDown);
        assertThat(fourth.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(registry.get("corobridge.pump.dispatches").functionCounter().count()).isGreaterThanOrEqualTo(before + 3);
        assertThat(registry.get("corobridge.pump.running").gauge().value()).isEqualTo(1);
        pump.shutdown();
        assertThat(pump.awaitTermination(Duration.ofSeconds(30))).isTrue();
        assertThat(registry.get("corobridge.pump.running").gauge().value()).isZero();
    }

    /**
     * Every kind of operation the pool counts has its meter, with the pool's count: {@code append}
     * and {@code size} had none (and {@code connect}, which the pool never counts, had one that
     * stayed at zero).
     */
    @Test
    void everyKindThePoolCountsIsAMeterWithItsCount(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        new RingMeterBinder(pool).bindTo(registry);
        java.nio.file.Path file = dir.resolve("f");
        try (dev.corobridge.ring.RingFile f = pool.openAsync(file, java.nio.file.StandardOpenOption.CREATE,
                java.nio.file.StandardOpenOption.WRITE, java.nio.file.StandardOpenOption.APPEND).join()) {
            f.appendAsync(java.nio.ByteBuffer.wrap(new byte[] {1, 2})).join();
        }
        try (dev.corobridge.ring.RingFile f = pool.openAsync(file, java.nio.file.StandardOpenOption.READ,
                java.nio.file.StandardOpenOption.WRITE).join()) {
            f.writeAsync(java.nio.ByteBuffer.wrap(new byte[] {3}), 0).join();
            f.readAsync(java.nio.ByteBuffer.allocate(8), 0).join();
            f.fsyncAsync().join();
            f.fdatasyncAsync().join();
            f.sizeAsync().join();
        }
        java.util.Map<String, Long> counted = pool.getMetrics().operations();
        assertThat(counted.keySet()).containsExactlyInAnyOrder("open", "append", "write", "read", "fsync", "fdatasync",
                "size", "close");
        assertThat(RingMeterBinder.KINDS).containsExactlyInAnyOrderElementsOf(counted.keySet());
        for (var e : counted.entrySet()) {
            assertThat(registry.get("corobridge.ring.operations").tag("kind", e.getKey()).functionCounter().count())
                    .as(e.getKey()).isEqualTo(e.getValue().doubleValue()).isPositive();
        }
    }

    @Test
    void theRingBinderRegistersEveryMeterWithItsNameTagsAndDescription() {
        MeterRegistry registry = new SimpleMeterRegistry();
        new RingMeterBinder(pool).bindTo(registry);
        String tag = " [tag(pool=meters-ring)] ";
        List<String> expected = new java.util.ArrayList<>();
        for (String kind : RingMeterBinder.KINDS) {
            expected.add("COUNTER corobridge.ring.operations [tag(kind=" + kind + "),tag(pool=meters-ring)] "
                    + "operations submitted, by kind");
        }
        expected.addAll(List.of(
                "COUNTER corobridge.ring.errors" + tag + "failed operations",
                "COUNTER corobridge.ring.completions" + tag + "operations completed (any outcome)",
                "GAUGE corobridge.ring.in.flight" + tag + "operations submitted and not completed",
                "GAUGE corobridge.ring.open.files" + tag + "files opened through the pool and not closed",
                "GAUGE corobridge.ring.rings" + tag + "rings (event loops) of the pool",
                "GAUGE corobridge.ring.transport [tag(pool=meters-ring),tag(transport=FALLBACK)] "
                        + "the active transport (tag), always 1"));
        assertThat(describe(registry)).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(registry.get("corobridge.ring.rings").gauge().value()).isEqualTo(1);
    }

    @Test
    void oneBinderBindsToSeveralRegistries() {
        PumpMeterBinder pumpMeters = new PumpMeterBinder(pump);
        RingMeterBinder ringMeters = new RingMeterBinder(pool);
        MeterRegistry first = new SimpleMeterRegistry();
        MeterRegistry second = new SimpleMeterRegistry();
        for (MeterRegistry r : List.of(first, second)) {
            pumpMeters.bindTo(r);
            ringMeters.bindTo(r);
        }
        assertThat(describe(second)).containsExactlyInAnyOrderElementsOf(describe(first)).hasSize(16 + RingMeterBinder.KINDS.size() + 6);
        assertThat(second.get("corobridge.ring.rings").gauge().value()).isEqualTo(1);
    }

    /** Type, name, tags (sorted by key, as Micrometer keeps them) and description of every meter. */
    private static List<String> describe(MeterRegistry registry) {
        return registry.getMeters().stream().map(MeterBindersTests::describe).toList();
    }

    private static String describe(Meter m) {
        Meter.Id id = m.getId();
        return id.getType() + " " + id.getName() + " " + id.getTags().toString().replace(", ", ",") + " "
                + id.getDescription();
    }
}
