package dev.corobridge.demo.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.logging.LogLevel;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import tools.jackson.databind.JsonNode;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

import dev.corobridge.demo.BoardService;
import dev.corobridge.demo.board.Change;
import dev.corobridge.demo.changelog.kafka.BoardPartitioner;
import dev.corobridge.demo.journal.JournalCodec;

/**
 * Cluster mode against a real Kafka broker (KRaft, a child JVM): two replicas, each a Spring
 * context of its own, write through both and converge to identical boards, with every acknowledged
 * write present under the id and version its 201 gave; a write's hop trace crosses the broker and
 * its trace id reaches the other replica's apply (in the record's headers); a replica with an
 * empty disk catches up with a log of 10,000 changes; a
 * replica restarted from its snapshot catches up with what it missed.
 */
@ExtendWith(OutputCaptureExtension.class)
class ClusterModeTest {

    private static final Duration CONVERGE = Duration.ofSeconds(60);
    /** Replica b's pump thread in a log line (the pattern pads thread names to 15 characters). */
    private static final java.util.regex.Pattern PUMP_B = java.util.regex.Pattern.compile("\\[\\s*pump-b\\]");

    private static TestKafka kafka;

    @TempDir
    Path dir;

    @BeforeAll
    static void broker() throws Exception {
        kafka = TestKafka.start();
    }

    @AfterAll
    static void stopBroker() {
        if (kafka != null) {
            kafka.close();
        }
    }

    @Test
    void writesThroughBothReplicasConvergeToIdenticalBoards(CapturedOutput output) throws Exception {
        String topic = TestKafka.freshTopic();
        try (Replica a = Replica.start("a", kafka.bootstrap(), topic, dir.resolve("a"), Map.of());
             Replica b = Replica.start("b", kafka.bootstrap(), topic, dir.resolve("b"), Map.of())) {
            Replica[] replicas = {a, b};
            Replica.Response created = a.post("/api/boards", "{\"name\":\"shared\"}");
            assertThat(created.status()).as(created.body()).isEqualTo(201);
            assertThat(created.header("Served-By")).isEqualTo("a");
            String board = created.json().path("id").asString();
            String second = b.post("/api/kt/boards", "{\"name\":\"other\"}").json().path("id").asString();
            converged(a, b); // both boards on both replicas before anyone writes to them

            // 8 writers, each alternating between the replicas: 25 notes each, on both boards.
            ConcurrentLinkedQueue<JsonNode> acknowledged = new ConcurrentLinkedQueue<>();
            ExecutorService writers = Executors.newFixedThreadPool(8);
            List<Future<?>> done = new ArrayList<>();
            for (int w = 0; w < 8; w++) {
                int writer = w;
                done.add(writers.submit(() -> {
                    for (int i = 0; i < 25; i++) {
                        Replica r = replicas[(writer + i) % 2];
                        String target = i % 3 == 0 ? second : board;
                        Replica.Response added = r.post("/api/boards/" + target + "/notes",
                                "{\"text\":\"w" + writer + " #" + i + "\"}");
                        assertThat(added.status()).as(added.body()).isEqualTo(201);
                        assertThat(added.header("Served-By")).isEqualTo(r.id);
                        acknowledged.add(added.json());
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(120, TimeUnit.SECONDS);
            }
            writers.shutdown();
            assertThat(acknowledged).hasSize(200);

            Map<String, String> boards = converged(a, b);
            assertThat(boards).containsOnlyKeys(board, second);
            for (JsonNode note : acknowledged) {
                // Every acknowledged write is there, under the id and version its 201 gave, on both.
                JsonNode onB = b.get("/api/boards/" + note.path("boardId").asString() + "/notes/" + note.path("id").asString())
                        .json();
                assertThat(onB.path("text").asString()).isEqualTo(note.path("text").asString());
                assertThat(onB.path("version").asLong()).isEqualTo(note.path("version").asLong());
            }
            assertThat(Replica.JSON.readTree(boards.get(board)).path("notes")).hasSize(200 - acknowledged.stream()
                    .filter(n -> n.path("boardId").asString().equals(second)).toList().size());

            // An edit through b, read through a, after a's apply: same version everywhere.
            JsonNode first = acknowledged.peek();
            Replica.Response edited = b.send("PUT", "/api/boards/" + first.path("boardId").asString() + "/notes/"
                    + first.path("id").asString(), "{\"text\":\"edited\",\"expectedVersion\":1}");
            assertThat(edited.status()).as(edited.body()).isEqualTo(200);
            // The losing edit of the same version is refused alike, wherever it was sent.
            Replica.Response lost = a.send("PUT", "/api/boards/" + first.path("boardId").asString() + "/notes/"
                    + first.path("id").asString(), "{\"text\":\"late\",\"expectedVersion\":1}");
            assertThat(lost.status()).as(lost.body()).isEqualTo(409);
            converged(a, b);

            // The write's hop trace crosses the broker: produced, consumed, applied on the pump.
            Replica.Response traced = a.post("/api/boards/" + board + "/notes", "{\"text\":\"traced\"}");
            // Steps stand in the order they happened: the producer's acknowledgement (produce) comes
            // after the prepare, but may reach this replica before or after its own consumer read
            // the record back, even after the pump applied it (seen on a fast machine).
            String hops = traced.header("Hop-Trace");
            assertThat(hops).matches(".*pump-a@[^>]*:prepare > .*kafka@[^>]*:consume > (kafka@[^>]*:produce > )?"
                    + "pump-a@[^>]*:apply.*").contains("kafka@").contains(":produce");
            assertThat(hops.indexOf(":produce")).as(hops).isGreaterThan(hops.indexOf(":prepare"));

            // The request's trace id travels in the record: the apply on the other replica logs under it.
            LoggingSystem logging = LoggingSystem.get(getClass().getClassLoader());
            logging.setLogLevel("dev.corobridge.demo", LogLevel.DEBUG);
            try {
                String traceId = java.util.HexFormat.of().formatHex(java.security.SecureRandom.getSeed(16));
                Replica.Response withTrace = a.send("POST", "/api/boards/" + board + "/notes", "{\"text\":\"across\"}",
                        "traceparent", "00-" + traceId + "-00f067aa0ba902b7-01");
                assertThat(withTrace.status()).isEqualTo(201);
                assertThat(withTrace.header("Trace-Id")).isEqualTo(traceId);
                long deadline = System.nanoTime() + CONVERGE.toNanos();
                while (System.nanoTime() < deadline && output.getAll().lines()
                        .noneMatch(l -> l.contains(traceId) && PUMP_B.matcher(l).find() && l.contains("pump: apply"))) {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50)); // polling pace
                }
                assertThat(output.getAll().lines().filter(l -> l.contains(traceId)))
                        .anySatisfy(l -> assertThat(l).containsPattern("\\[\\s*pump-a\\]").contains("pump: prepare"))
                        .anySatisfy(l -> assertThat(l).contains("kafka-consume-a").contains("kafka: consumed own change"))
                        .anySatisfy(l -> assertThat(l).containsPattern(PUMP_B).contains("pump: apply (from the log"));
            } finally {
                logging.setLogLevel("dev.corobridge.demo", null);
            }

            JsonNode cluster = a.cluster();
            assertThat(cluster.path("replicaId").asString()).isEqualTo("a");
            assertThat(cluster.path("connected").asBoolean()).isTrue();
            assertThat(cluster.path("partitions")).hasSize(4);
        }
    }

    /**
     * (Every Spring context of this JVM shares Reactor Netty's global resources, which the first
     * context to close releases: so a replica here is never closed while another one still serves.
     * Both stop, then the writer comes back alone and writes what the other one misses.)
     */
    @Test
    void aReplicaRestartedFromItsSnapshotCatchesUpWithWhatItMissed(CapturedOutput output) throws Exception {
        String topic = TestKafka.freshTopic();
        Path aData = dir.resolve("a");
        Path bData = dir.resolve("b");
        String board;
        try (Replica a = Replica.start("a", kafka.bootstrap(), topic, aData, Map.of());
             Replica b = Replica.start("b", kafka.bootstrap(), topic, bData, Map.of())) {
            board = b.post("/api/boards", "{\"name\":\"restart\"}").json().path("id").asString();
            for (int i = 0; i < 20; i++) {
                assertThat(b.post("/api/boards/" + board + "/notes", "{\"text\":\"before " + i + "\"}").status())
                        .isEqualTo(201);
            }
            converged(a, b);
            b.bean(BoardService.class).snapshotNow();
        }
        assertThat(Files.exists(bData.resolve("boards.snapshot"))).isTrue();
        try (Replica a = Replica.start("a", kafka.bootstrap(), topic, aData, Map.of())) {
            for (int i = 0; i < 20; i++) {
                assertThat(a.post("/api/boards/" + board + "/notes", "{\"text\":\"missed " + i + "\"}").status())
                        .isEqualTo(201);
            }
            try (Replica b = Replica.start("b", kafka.bootstrap(), topic, bData, Map.of())) {
                Map<String, String> boards = converged(a, b);
                assertThat(Replica.JSON.readTree(boards.get(board)).path("notes")).hasSize(40);
                // Only the tail was replayed: the snapshot covered the board and its first 20 notes.
                assertThat(output.getAll()).containsPattern("Snapshot: loaded 1 boards covering");
                JsonNode live = b.get("/api/live").json();
                assertThat(live.path("journal").path("total").asLong()).isEqualTo(20);
                assertThat(b.post("/api/boards/" + board + "/notes", "{\"text\":\"after\"}").json().path("id").asString())
                        .isEqualTo("n41");
            }
        }
    }

    @Test
    void aReplicaWithAnEmptyDiskCatchesUpWithTenThousandChanges() throws Exception {
        String topic = TestKafka.freshTopic();
        int partitions = 4;
        kafka.cluster.createTopic(topic, partitions, 1, Map.of());
        BoardPartitioner partitioner = new BoardPartitioner(partitions);
        // The log as replicas would have written it: 20 boards, then 10,000 notes spread over them.
        List<String> boardIds = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            boardIds.add("b" + (1_000_000_000_000_000_000L + i));
        }
        try (KafkaProducer<String, byte[]> producer = producer()) {
            List<Future<?>> sent = new ArrayList<>();
            for (String id : boardIds) {
                sent.add(producer.send(new ProducerRecord<>(topic, partitioner.partitionOf(id), id,
                        JournalCodec.payload(new Change.CreateBoard(id, "board " + id)))));
            }
            for (int n = 0; n < 10_000; n++) {
                String id = boardIds.get(n % boardIds.size());
                sent.add(producer.send(new ProducerRecord<>(topic, partitioner.partitionOf(id), id,
                        JournalCodec.payload(new Change.AddNote(id, Change.AddNote.ID_AT_APPLY, "note " + n)))));
            }
            producer.flush();
            for (Future<?> f : sent) {
                f.get(60, TimeUnit.SECONDS);
            }
        }
        try (Replica c = Replica.start("c", kafka.bootstrap(), topic, dir.resolve("empty"),
                Map.of("demo.kafka.partitions", Integer.toString(partitions)))) {
            // The start returns once the replay up to the log's end at start is applied.
            JsonNode live = c.get("/api/live").json();
            assertThat(live.path("journal").path("total").asLong()).isEqualTo(10_020);
            assertThat(live.path("cluster").path("lag").asLong()).isZero();
            JsonNode list = c.get("/api/boards").json();
            assertThat(list).hasSize(20);
            assertThat(list.valueStream().mapToLong(b -> b.path("notes").asLong()).sum()).isEqualTo(10_000);
            JsonNode last = c.get("/api/boards/" + boardIds.getLast()).json();
            assertThat(last.path("revision").asLong()).isEqualTo(500);
            assertThat(last.path("notes").get(499).path("id").asString()).isEqualTo("n500");
            assertThat(last.path("notes").get(499).path("text").asString()).isEqualTo("note 9999");
        }
    }

    /**
     * A record of another producer on a partition that is not its board's is skipped alike on every
     * replica, in the replay at start and live: its board's commands are ordered only within their
     * own partition, so a note added from another partition got a different id on each replica
     * (partitions interleave differently on each), and a board created there could come after its
     * notes on one replica and before them on another.
     */
    @Test
    void aForeignRecordOnAnotherPartitionThanItsBoardsIsSkippedAlike() throws Exception {
        String topic = TestKafka.freshTopic();
        int partitions = 4;
        kafka.cluster.createTopic(topic, partitions, 1, Map.of());
        BoardPartitioner partitioner = new BoardPartitioner(partitions);
        String board = "b1000000000000000007";
        String elsewhere = "b1000000000000000008";
        int home = partitioner.partitionOf(board);
        int wrong = (home + 1) % partitions;
        int wrongForElsewhere = (partitioner.partitionOf(elsewhere) + 1) % partitions;
        try (KafkaProducer<String, byte[]> producer = producer()) {
            java.util.function.BiConsumer<Integer, Change> send = (partition, change) -> {
                try {
                    producer.send(new ProducerRecord<>(topic, partition, change.boardId(), JournalCodec.payload(change)))
                            .get(60, TimeUnit.SECONDS);
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            };
            send.accept(home, new Change.CreateBoard(board, "home"));
            send.accept(wrong, new Change.AddNote(board, Change.AddNote.ID_AT_APPLY, "from another partition"));
            send.accept(wrongForElsewhere, new Change.CreateBoard(elsewhere, "created on another partition"));
            send.accept(home, new Change.AddNote(board, Change.AddNote.ID_AT_APPLY, "at home"));
            try (Replica c = Replica.start("c", kafka.bootstrap(), topic, dir.resolve("c"),
                    Map.of("demo.kafka.partitions", Integer.toString(partitions)))) {
                // The replay at start.
                JsonNode notes = c.get("/api/boards/" + board).json().path("notes");
                assertThat(notes).hasSize(1);
                assertThat(notes.get(0).path("text").asString()).isEqualTo("at home");
                assertThat(notes.get(0).path("id").asString()).isEqualTo("n1");
                assertThat(c.get("/api/boards/" + elsewhere).status()).isEqualTo(404);

                // Live.
                send.accept(wrong, new Change.AddNote(board, Change.AddNote.ID_AT_APPLY, "live, from another partition"));
                send.accept(home, new Change.AddNote(board, Change.AddNote.ID_AT_APPLY, "live, at home"));
                long deadline = System.nanoTime() + CONVERGE.toNanos();
                while (appliedUpTo(c, wrong) < 2 || appliedUpTo(c, home) < 3) { // both partitions' records
                    assertThat(System.nanoTime() - deadline).as("the replica applies the live records").isNegative();
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50)); // polling pace, not synchronisation
                }
                notes = c.get("/api/boards/" + board).json().path("notes");
                assertThat(notes.valueStream().map(n -> n.path("text").asString()).toList())
                        .containsExactly("at home", "live, at home");
                assertThat(notes.get(1).path("id").asString()).isEqualTo("n2");
                assertThat(c.get("/api/live").json().path("journal").path("rejected").asLong()).isEqualTo(1);
            }
        }
    }

    /** A producer of records as another producer (or a replica) would write them: acks=all, 5 ms linger. */
    private static KafkaProducer<String, byte[]> producer() {
        java.util.Properties config = new java.util.Properties();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrap());
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        return new KafkaProducer<>(config, new StringSerializer(), new ByteArraySerializer());
    }

    /** The offset after the last record {@code r} applied (or skipped) on {@code partition}; 0 before any. */
    private static long appliedUpTo(Replica r, int partition) throws Exception {
        for (JsonNode p : r.cluster().path("applied")) {
            if (p.path("partition").asInt() == partition) {
                return p.path("offset").asLong();
            }
        }
        return 0;
    }

    /**
     * Waits (bounded) until both replicas applied every partition up to its end and show the same
     * boards; returns them.
     */
    static Map<String, String> converged(Replica a, Replica b) throws Exception {
        long deadline = System.nanoTime() + CONVERGE.toNanos();
        Map<String, String> boardsA = null;
        Map<String, String> boardsB = null;
        while (System.nanoTime() < deadline) {
            JsonNode ca = a.cluster();
            JsonNode cb = b.cluster();
            if (ca.path("lag").asLong() == 0 && cb.path("lag").asLong() == 0
                    && ca.path("applied").equals(cb.path("applied"))) {
                boardsA = a.boards();
                boardsB = b.boards();
                if (boardsA.equals(boardsB)) {
                    return boardsA;
                }
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50)); // polling pace, not synchronisation
        }
        assertThat(boardsA).as("replicas did not converge within %s", CONVERGE).isEqualTo(boardsB);
        throw new AssertionError("replicas did not catch up within " + CONVERGE);
    }
}
