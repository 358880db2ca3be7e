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
        return a.join(WAIT);
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

    /** TCP states in /proc/net/tcp: ESTABLISHED and CLOSE_WAIT (the peer's FIN has arrived). */
    static final int TCP_ESTABLISHED = 0x01;
    static final int TCP_CLOSE_WAIT = 0x08;
    /** {@link #tcpState} of a socket the kernel no longer lists (a reset moved it to CLOSE and unhashed it). */
    static final int TCP_GONE = -1;

    /**
     * The kernel's view of the local TCP socket {@code localPort -> remotePort}: its state from
     * {@code /proc/net/tcp} and {@code /proc/net/tcp6}, or {@link #TCP_GONE}. Lets a test wait until
     * a FIN or RST has really arrived, without sleeping and without reading the socket.
     */
    static int tcpState(int localPort, int remotePort) throws IOException {
        long[] row = tcpRow(localPort, remotePort);
        return row == null ? TCP_GONE : (int) row[0];
    }

    /** Bytes received by the kernel for that socket and not yet read ({@code rx_queue}), or -1 if gone. */
    static long tcpUnread(int localPort, int remotePort) throws IOException {
        long[] row = tcpRow(localPort, remotePort);
        return row == null ? -1 : row[1];
    }

    /** TCP state SYN_SENT: a connect waiting for the peer's answer. */
    static final int TCP_SYN_SENT = 0x02;

    /**
     * Local ports of this host's TCP sockets connected (or connecting) to {@code remotePort} on
     * loopback, in state {@code state} ({@code -1}: any state), from {@code /proc/net/tcp(6)}.
     */
    static java.util.List<Integer> localPortsTo(int remotePort, int state) throws IOException {
        java.util.List<Integer> ports = new java.util.ArrayList<>();
        for (String table : new String[] {"/proc/net/tcp", "/proc/net/tcp6"}) {
            Path p = Path.of(table);
            if (!Files.exists(p)) {
                continue;
            }
            for (String line : Files.readAllLines(p)) {
                String[] f = line.trim().split("\\s+");
                if (f.length < 5 || !f[1].contains(":") || !f[2].contains(":")) {
                    continue;
                }
                int rp = Integer.parseInt(f[2].substring(f[2].indexOf(':') + 1), 16);
                int st = Integer.parseInt(f[3], 16);
                if (rp == remotePort && (state < 0 || st == state)) {
                    ports.add(Integer.parseInt(f[1].substring(f[1].indexOf(':') + 1), 16));
                }
            }
        }
        return ports;
    }

    private static long[] tcpRow(int localPort, int remotePort) throws IOException {
        for (String table : new String[] {"/proc/net/tcp", "/proc/net/tcp6"}) {
            Path p = Path.of(table);
            if (!Files.exists(p)) {
                continue;
            }
            for (String line : Files.readAllLines(p)) {
                String[] f = line.trim().split("\\s+");
                if (f.length < 5 || !f[1].contains(":")) {
                    continue;
                }
                int lp = Integer.parseInt(f[1].substring(f[1].indexOf(':') + 1), 16);
                int rp = f[2].contains(":") ? Integer.parseInt(f[2].substring(f[2].indexOf(':') + 1), 16) : -1;
                if (lp == localPort && rp == remotePort) {
                    String q = f[4];
                    return new long[] {Integer.parseInt(f[3], 16), Long.parseLong(q.substring(q.indexOf(':') + 1), 16)};
                }
            }
        }
        return null;
    }
}
