package dev.corobridge.kafkabroker;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/**
 * The two loopback ports of one broker: its client listener and its controller (KRaft) listener.
 * Both are chosen once, when the cluster starts, and kept across restarts, so clients and the other
 * voters find a restarted broker where it was.
 *
 * <p>Immutable; thread-safe.
 */
record BrokerPorts(int broker, int controller) {

    /**
     * {@code count} pairs of free ports: every socket stays bound until all are chosen, so no two
     * pairs share a port (another process may still take one before the broker binds it; the start
     * then fails with the broker's log).
     */
    static List<BrokerPorts> allocate(int count) {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < 2 * count; i++) {
                sockets.add(new ServerSocket(0, 1, InetAddress.getLoopbackAddress()));
            }
            List<BrokerPorts> ports = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                ports.add(new BrokerPorts(sockets.get(2 * i).getLocalPort(), sockets.get(2 * i + 1).getLocalPort()));
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        } finally {
            for (ServerSocket s : sockets) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // Closing a listening socket that never accepted: nothing to recover.
                }
            }
        }
    }
}
