package dev.corobridge.it;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.LongAdder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * 200 concurrent clients (virtual threads, one shared HTTP/1.1 client) mix reads and writes
 * through both faces for 30 s: zero errors, and afterwards every acknowledged write is present
 * (notes with their last acknowledged text and version, deleted notes gone, and each board's
 * revision equal to the number of changes made to it).
 *
 * <p>{@code -Dit.load.clients=200 -Dit.load.seconds=30} change the size.
 */
class LoadIT {

    @TempDir
    static Path data;

    @AfterAll
    static void noLeftovers() {
        DemoProcess.assertNoLeftovers();
    }

    /** What one client knows about a note it made. */
    record Known(String boardId, String face, String text, long version) {
    }

    @Test
    void twoHundredClientsForThirtySecondsWithoutAnError() throws Exception {
        int clients = Integer.getInteger("it.load.clients", 200);
        int seconds = Integer.getInteger("it.load.seconds", 30);
        int boardCount = 8;
        try (DemoProcess demo = DemoProcess.start("load", data)) {
            Http setup = demo.http();
            Scenarios s = new Scenarios(setup);
            List<String> boards = new ArrayList<>();
            for (int i = 0; i < boardCount; i++) {
                boards.add(s.createBoard("/api", "load " + i).path("id").asText());
            }
            Http http = new Http(demo.baseUrl(), Duration.ofSeconds(30));

            Map<String, Known> acked = new ConcurrentHashMap<>();      // note id -> last acknowledged state
            Map<String, String> deleted = new ConcurrentHashMap<>();   // note id -> board id
            Map<String, LongAdder> changesPerBoard = new ConcurrentHashMap<>();
            boards.forEach(b -> changesPerBoard.put(b, new LongAdder()));
            ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
            LongAdder errorCount = new LongAdder();
            LongAdder requests = new LongAdder();
            LongAdder writes = new LongAdder();
            ConcurrentLinkedQueue<long[]> latencies = new ConcurrentLinkedQueue<>();
            long end = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
            CountDownLatch go = new CountDownLatch(1);

            try (ExecutorService ex = Executors.newVirtualThreadPerTaskExecutor()) {
                for (int c = 0; c < clients; c++) {
                    int client = c;
                    ex.submit(() -> {
                        SplittableRandom rnd = new SplittableRandom(client * 7919L);
                        String board = boards.get(client % boardCount);
                        String face = Scenarios.FACES.get(client % 2);
                        List<String> mine = new ArrayList<>();
                        long[] lat = new long[1 << 16];
                        int n = 0;
                        int seq = 0;
                        try {
                            go.await();
                        } catch (InterruptedException e) {
                            return;
                        }
                        while (System.nanoTime() < end) {
                            int op = rnd.nextInt(100);
                            long t0 = System.nanoTime();
                            String what = "?";
                            try {
                                if (op < 35 || mine.isEmpty() && op < 50) {
                                    String text = "c" + client + "-" + (seq++) + " load note";
                                    what = "add " + text;
                                    Http.Response r = http.postJson(face + "/boards/" + board + "/notes", Http.obj("text", text));
                                    JsonNode j = r.expect(201);
                                    String id = j.path("id").asText();
                                    acked.put(id, new Known(board, face, text, 1));
                                    mine.add(id);
                                    changesPerBoard.get(board).increment();
                                    writes.increment();
                                } else if (op < 45) {
                                    String id = mine.get(rnd.nextInt(mine.size()));
                                    Known k = acked.get(id);
                                    String text = k.text() + " +";
                                    what = "edit " + id;
                                    JsonNode j = http.putJson(face + "/boards/" + board + "/notes/" + id,
                                            Http.obj("text", text, "expectedVersion", k.version())).expect(200);
                                    acked.put(id, new Known(board, face, text, j.path("version").asLong()));
                                    changesPerBoard.get(board).increment();
                                    writes.increment();
                                } else if (op < 48) {
                                    String id = mine.remove(rnd.nextInt(mine.size()));
                                    Known k = acked.get(id);
                                    what = "delete " + id;
                                    Http.Response r = http.delete(face + "/boards/" + board + "/notes/" + id + "?expectedVersion=" + k.version());
                                    Check.equal(r.status(), 204, "delete status (" + r.abbreviated() + ")");
                                    acked.remove(id);
                                    deleted.put(id, board);
                                    changesPerBoard.get(board).increment();
                                    writes.increment();
                                } else if (op < 78) {
                                    what = "get board";
                                    http.get(face + "/boards/" + boards.get(rnd.nextInt(boardCount))).expect(200);
                                } else if (op < 88) {
                                    what = "list boards";
                                    http.get(face + "/boards").expect(200);
                                } else if (op < 95) {
                                    what = "ping";
                                    http.get("/api/ping").expect(200);
                                } else {
                                    what = "stats";
                                    http.get(face + "/boards/" + board + "/stats").expect(200);
                                }
                            } catch (Throwable t) {
                                errorCount.increment();
                                if (errors.size() < 20) {
                                    errors.add("client " + client + " " + what + ": " + t);
                                }
                            }
                            requests.increment();
                            if (n < lat.length) {
                                lat[n++] = System.nanoTime() - t0;
                            }
                        }
                        latencies.add(java.util.Arrays.copyOf(lat, n));
                    });
                }
                go.countDown();
            }

            long total = requests.sum();
            List<Long> all = new ArrayList<>();
            latencies.forEach(a -> {
                for (long l : a) {
                    all.add(l);
                }
            });
            Collections.sort(all);
            JsonNode live = setup.get("/api/live").expect(200);
            System.out.printf("[load] %d clients, %d s: %d requests (%.0f/s), %d writes, %d errors; latency p50 %.1f ms, p99 %.1f ms, max %.1f ms%n",
                    clients, seconds, total, total / (double) seconds, writes.sum(), errorCount.sum(),
                    pct(all, 0.50), pct(all, 0.99), pct(all, 1.0));
            System.out.println("[load] live: " + live);

            assertThat(errors).as("errors (%d in all)", errorCount.sum()).isEmpty();
            assertThat(total).as("requests made").isGreaterThan(clients);

            // Every acknowledged write is present, every acknowledged delete is gone.
            Map<String, JsonNode> present = new HashMap<>();
            for (String b : boards) {
                JsonNode snap = s.board("/api", b);
                assertThat(snap.path("revision").asLong()).as("revision of %s = number of changes made to it", b)
                        .isEqualTo(changesPerBoard.get(b).sum());
                snap.path("notes").forEach(n -> present.put(n.path("id").asText(), n));
            }
            List<String> missing = new ArrayList<>();
            acked.forEach((id, k) -> {
                JsonNode n = present.get(id);
                if (n == null || !n.path("text").asText().equals(k.text()) || n.path("version").asLong() != k.version()
                        || !n.path("boardId").asText().equals(k.boardId())) {
                    missing.add(id + " expected " + k + " but found " + n);
                }
            });
            assertThat(missing).as("acknowledged writes missing or different").isEmpty();
            assertThat(deleted.keySet()).as("acknowledged deletes").doesNotContainAnyElementsOf(present.keySet());
            assertThat(present.keySet()).as("notes present = notes acknowledged").containsExactlyInAnyOrderElementsOf(acked.keySet());
        }
    }

    private static double pct(List<Long> sorted, double p) {
        if (sorted.isEmpty()) {
            return 0;
        }
        int i = (int) Math.min(sorted.size() - 1, Math.max(0, Math.ceil(p * sorted.size()) - 1));
        return sorted.get(i) / 1e6;
    }

}
