package dev.corobridge.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Cluster mode against real processes: Kafka brokers as child JVMs (build-tools/kafka-broker) and
 * demo replicas from the packaged jar with {@code demo.store=kafka}. Each test counts the writes
 * that were acknowledged (201) and checks afterwards that every replica holds every one of them and
 * that all replicas hold the same boards (a hash of every board, {@link BoardHashes}).
 *
 * <p>Failures injected: SIGKILL of a replica and of a broker under load, Kafka unreachable at start
 * and while running, a replica that starts with an empty disk on a long log. Triggers are counts of
 * acknowledged writes, never delays.
 */
class ClusterModeIT {

    private static final Duration CONVERGE = Duration.ofMinutes(3);

    @TempDir
    Path dir;

    @AfterAll
    static void nothingLeftRunning() {
        DemoProcess.assertNoLeftovers();
        assertThat(ProcessHandle.current().descendants()
                .filter(p -> p.info().commandLine().orElse("").contains(dev.corobridge.kafkabroker.KafkaCluster.OWNER_PROPERTY)))
                .as("Kafka brokers left running").isEmpty();
    }

    @Test
    void threeReplicasOnOneBrokerConvergeUnderThirtyTwoWriters() throws Exception {
        try (ReplicaCluster cluster = ReplicaCluster.start("converge", 1, 3, dir)) {
            ClusterLoad load = new ClusterLoad(cluster, ClusterLoad.createBoards(cluster, 8), 32, 10);
            load.run();

            assertThat(load.abandoned()).as(load.summary()).isZero();
            assertThat(load.acks()).as(load.summary()).hasSize(320);
            Map<String, String> state = cluster.awaitConverged(CONVERGE);
            assertThat(state).hasSize(8);
            for (int i = 0; i < 3; i++) {
                assertThat(ClusterLoad.missing(cluster, i, load.acks())).as("acknowledged writes missing on %s",
                        ReplicaCluster.replicaId(i)).isEmpty();
            }
            // Read-your-writes: the replica that acknowledged a write serves it at once, with the same id.
            ClusterLoad.Ack last = load.acks().getLast();
            JsonNode note = cluster.http(last.replica(), ClusterLoad.REQUEST_TIMEOUT)
                    .get("/api/boards/" + last.boardId() + "/notes/" + last.noteId()).expect(200);
            assertThat(note.path("text").asText()).isEqualTo(last.text());
        }
    }

    @Test
    void aReplicaKilledUnderLoadLosesNoAcknowledgedWriteAndConvergesAfterItsRestart() throws Exception {
        try (ReplicaCluster cluster = ReplicaCluster.start("replica-kill", 1, 3, dir)) {
            ClusterLoad load = new ClusterLoad(cluster, ClusterLoad.createBoards(cluster, 6), 16, 20);
            var killPoint = load.acknowledged(100);
            Future<?> writers = load.start();
            assertThat(killPoint.await(5, TimeUnit.MINUTES)).as(load.summary()).isTrue();
            cluster.killReplica(2);
            writers.get(15, TimeUnit.MINUTES);

            // The two others kept serving: every write was acknowledged by one of them.
            assertThat(load.abandoned()).as(load.summary()).isZero();
            assertThat(load.timeouts()).as(load.summary()).isZero();
            assertThat(ClusterLoad.missing(cluster, 0, load.acks())).isEmpty();

            cluster.startReplica(2);
            cluster.awaitConverged(CONVERGE);
            for (int i = 0; i < 3; i++) {
                assertThat(ClusterLoad.missing(cluster, i, load.acks())).as("acknowledged writes missing on %s",
                        ReplicaCluster.replicaId(i)).isEmpty();
            }
        }
    }

    @Test
    void aBrokerKilledUnderLoadLosesNoAcknowledgedWriteAndNoRequestHangs() throws Exception {
        try (ReplicaCluster cluster = ReplicaCluster.start("broker-kill", 3, 3, dir)) {
            ClusterLoad load = new ClusterLoad(cluster, ClusterLoad.createBoards(cluster, 6), 16, 20);
            var killPoint = load.acknowledged(100);
            Future<?> writers = load.start();
            assertThat(killPoint.await(5, TimeUnit.MINUTES)).as(load.summary()).isTrue();
            HealthWatch health = HealthWatch.start(cluster);
            cluster.kafka().kill(1);
            writers.get(15, TimeUnit.MINUTES);
            List<String> downs = health.stop();

            // Two brokers of three answer all along (replication factor 3, min.insync.replicas 2): no
            // replica may take itself for cut off. A write whose partition is between leaders waits,
            // and may time out (503 "did not acknowledge"), but none is refused for want of brokers.
            assertThat(downs).as("health DOWN while two brokers of three answered").isEmpty();
            assertThat(load.refusals()).as("writes refused for want of brokers while two of three answered")
                    .noneMatch(detail -> detail.contains("reach the brokers"));
            assertThat(load.timeouts()).as("requests past the request timeout; " + load.summary()).isZero();
            assertThat(load.badProblems()).as("503 answers that are not problem JSON").isEmpty();
            assertThat(load.abandoned()).as(load.summary()).isZero();
            cluster.awaitConverged(CONVERGE);
            for (int i = 0; i < 3; i++) {
                assertThat(ClusterLoad.missing(cluster, i, load.acks())).as("acknowledged writes missing on %s",
                        ReplicaCluster.replicaId(i)).isEmpty();
            }
        }
    }

    @Test
    void kafkaUnreachableAtStartAndWhileRunningAnswers503AndRecoversWithoutARestart() throws Exception {
        try (ReplicaCluster cluster = ReplicaCluster.brokersOnly("kafka-down", 1, 1, dir)) {
            cluster.kafka().kill(0);
            // A short start wait (default 15 s): the behaviour is the same, the test waits less.
            DemoProcess replica = cluster.launchReplica(0, "demo.kafka.start-wait=5s");
            Http http = cluster.http(0, ClusterLoad.REQUEST_TIMEOUT);

            // At start: the replica starts without the log after demo.kafka.start-wait (API.md, "Brokers
            // unreachable"): it answers, its health is DOWN and writes are refused with problem JSON.
            Http.Response health = awaitAnswer(http, "/actuator/health");
            assertThat(health.status()).as(health.abbreviated()).isEqualTo(503);
            assertThat(health.body()).contains("DOWN");
            Http.Response write = http.postJson("/api/boards", Http.obj("name", "no kafka"));
            assertThat(write.status()).as(write.abbreviated()).isEqualTo(503);
            assertThat(write.contentType()).startsWith("application/problem+json");

            cluster.kafka().restart(0);
            // Recovery is the health turning UP (the replica reached the broker). Readiness says nothing
            // here: it turned UP when the start went on without the log.
            awaitHealthUp(http);
            String board = http.postJson("/api/boards", Http.obj("name", "with kafka")).expect(201).path("id").asText();

            // While running: the broker dies; writes answer 503 problem JSON within the request timeout.
            cluster.kafka().kill(0);
            Http.Response refused = awaitStatus(http, "/api/boards/" + board + "/notes", 503);
            assertThat(refused.contentType()).startsWith("application/problem+json");
            assertThat(http.get("/actuator/health").status()).isEqualTo(503);

            cluster.kafka().restart(0);
            awaitStatus(http, "/api/boards/" + board + "/notes", 201);
            assertThat(replica.isAlive()).isTrue();
            List<?> errors = replica.grep(Pattern.compile("\\bERROR\\b"));
            assertThat(errors.size()).as("ERROR lines in %s", replica.logFile()).isLessThanOrEqualTo(10);
        }
    }

    @Test
    void aReplicaWithAnEmptyDiskCatchesUpOnTenThousandChanges() throws Exception {
        int changes = Integer.getInteger("it.cluster.catch-up-changes", 10_000);
        try (ReplicaCluster cluster = ReplicaCluster.brokersOnly("catch-up", 1, 2, dir)) {
            cluster.startReplica(0);
            List<String> boards = ClusterLoad.createBoards(cluster, 10);
            loadOnReplicaZero(cluster, boards, changes - boards.size());
            cluster.startReplicaWithEmptyDisk(1);
            Map<String, String> state = cluster.awaitConverged(CONVERGE);
            assertThat(state).hasSize(boards.size());
            long notes = 0;
            for (String b : boards) {
                notes += cluster.http(1, ClusterLoad.REQUEST_TIMEOUT).get("/api/boards/" + b).expect(200).path("notes").size();
            }
            assertThat(notes).isEqualTo(changes - boards.size());
        }
    }

    /**
     * {@code changes} notes added through replica 0 by 32 threads (bounded): each write waits for a
     * broker round trip, so the rate grows with the writers.
     */
    private static void loadOnReplicaZero(ReplicaCluster cluster, List<String> boards, int changes) throws Exception {
        Http http = cluster.http(0, ClusterLoad.REQUEST_TIMEOUT);
        int threads = 32;
        var pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> all = new java.util.ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                all.add(pool.submit(() -> {
                    for (int k = thread; k < changes; k += threads) {
                        http.postJson("/api/boards/" + boards.get(k % boards.size()) + "/notes", Http.obj("text", "c" + k))
                                .expect(201);
                    }
                    return null;
                }));
            }
            for (Future<?> f : all) {
                f.get(10, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** The first HTTP answer of the service (it may not be listening yet), bounded. */
    private static Http.Response awaitAnswer(Http http, String path) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (true) {
            try {
                return http.get(path);
            } catch (RuntimeException notYet) {
                if (System.nanoTime() - deadline > 0) {
                    throw new AssertionError(path + " never answered", notYet);
                }
                DemoProcess.sleep(200);
            }
        }
    }

    /** Waits (bounded) until {@code /actuator/health} answers 200: the replica reaches the brokers again. */
    private static void awaitHealthUp(Http http) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        Http.Response last = http.get("/actuator/health");
        while (last.status() != 200) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("health not UP within 120 s of the broker's restart; last: " + last.status()
                        + " " + last.abbreviated());
            }
            DemoProcess.sleep(200);
            last = http.get("/actuator/health");
        }
        assertThat(last.body()).contains("UP");
    }

    /** POSTs a note until the answer has {@code status} (bounded); every answer must come within the request timeout. */
    private static Http.Response awaitStatus(Http http, String path, int status) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        Http.Response last = null;
        while (System.nanoTime() - deadline < 0) {
            last = http.postJson(path, Http.obj("text", "probe"));
            if (last.status() == status) {
                return last;
            }
            DemoProcess.sleep(200);
        }
        throw new AssertionError("no " + status + " from POST " + path + " within 120 s; last: "
                + (last == null ? "none" : last.status() + " " + last.abbreviated()));
    }
}
