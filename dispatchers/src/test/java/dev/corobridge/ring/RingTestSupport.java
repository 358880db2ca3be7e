package dev.corobridge.ring;

import dev.corobridge.bridge.Awaitable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** Helpers for ring tests: bounded awaits, FIFOs, fd counting. */
final class RingTestSupport {

    static final Duration WAIT = Duration.ofSeconds(30);

    private RingTestSupport() {
    }

    @SuppressWarnings("deprecation")
    static <T> T await(Awaitable<T> a) throws Exception {
        return a.await(WAIT);
    }

    static RingPool pool(Transport t) {
        return RingPool.start(RingPoolConfig.builder().name("test-" + t.name().toLowerCase().replace('_', '-'))
                .rings(2).forceFallback(t == Transport.FALLBACK).shutdownGracePeriod(Duration.ofSeconds(5)).build());
    }

    static void stop(RingPool pool) throws Exception {
        pool.shutdown().get(60, TimeUnit.SECONDS);
    }

    /** A named pipe: reads from it block until someone writes, which makes in-flight reads observable. */
    static Path fifo(Path dir, String name) throws IOException, InterruptedException {
        Path p = dir.resolve(name);
        Process mk = new ProcessBuilder("mkfifo", p.toString()).inheritIO().start();
        if (!mk.waitFor(30, TimeUnit.SECONDS) || mk.exitValue() != 0) {
            throw new IOException("mkfifo failed for " + p);
        }
        return p;
    }

    /** Open file descriptors of this process. */
    static long openFds() throws IOException {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            return s.count();
        }
    }

    static void waitUntil(java.util.function.BooleanSupplier c, String what) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!c.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out waiting for " + what);
            }
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000); // polling a condition, bounded above
        }
    }
}
