package dev.corobridge.it;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Samples {@code /actuator/health} of every replica of a {@link ReplicaCluster} about four times a
 * second on a thread of its own, from {@link #start} until {@link #stop}, and keeps each answer that
 * was not {@code UP} (a {@code 503} with {@code DOWN}), so that a test can say a failure it injected
 * never took a replica down. A replica that does not answer (killed by the test) is not counted.
 *
 * <p>Thread-safe: the sampler adds to a synchronized list; {@link #stop} joins the sampler.
 */
final class HealthWatch {

    private final AtomicBoolean stop = new AtomicBoolean();
    private final List<String> notUp = Collections.synchronizedList(new ArrayList<>());
    private final Thread sampler;

    private HealthWatch(ReplicaCluster cluster) {
        List<Http> replicas = new ArrayList<>();
        for (int i = 0; i < cluster.size(); i++) {
            replicas.add(cluster.http(i, Duration.ofSeconds(5)));
        }
        sampler = new Thread(() -> {
            while (!stop.get()) {
                for (int i = 0; i < replicas.size(); i++) {
                    try {
                        Http.Response r = replicas.get(i).get("/actuator/health");
                        if (r.status() != 200) {
                            notUp.add(Instant.now() + " " + ReplicaCluster.replicaId(i) + ": " + r.status() + " " + r.body());
                        }
                    } catch (java.io.UncheckedIOException notAnswering) {
                        // a replica the test stopped: its health is not the question
                    }
                }
                DemoProcess.sleep(250);
            }
        }, "health-watch");
        sampler.setDaemon(true);
    }

    /** Starts sampling. */
    static HealthWatch start(ReplicaCluster cluster) {
        HealthWatch w = new HealthWatch(cluster);
        w.sampler.start();
        return w;
    }

    /** Stops sampling and returns the answers that were not UP, in order. */
    List<String> stop() throws InterruptedException {
        stop.set(true);
        sampler.join(TimeUnit.SECONDS.toMillis(30));
        synchronized (notUp) {
            return List.copyOf(notUp);
        }
    }
}
