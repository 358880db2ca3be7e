package dev.corobridge.it;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Writers for the failure tests: {@code writers} threads, each adding {@code writesPerWriter}
 * notes (unique texts) to the given boards through the replicas, writer {@code w} starting at
 * replica {@code w % n} and moving to the next replica when one refuses the connection, times out
 * or answers 503, as a client behind a balancer would: after a 503 it waits the answer's
 * {@code Retry-After} (the service sends one), after a refused connection a little; a write is given
 * up ({@link #abandoned}) only after {@link #GIVE_UP_AFTER} of such answers, a span longer than a
 * broker failover. Every acknowledged write (201) is recorded
 * with the replica that answered it; {@link #acknowledged(int)} lets a test act (kill a process)
 * after a number of acknowledgements, a deterministic trigger instead of a delay.
 *
 * <p>Thread-safe: the writers record into concurrent collections; {@link #run} blocks the test
 * thread until every writer has finished (bounded).
 */
final class ClusterLoad {

    /** One acknowledged write. */
    record Ack(String boardId, String noteId, String text, int replica) {
    }

    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    /** How long one write is retried through 503s and refused connections before it is abandoned. */
    static final Duration GIVE_UP_AFTER = Duration.ofSeconds(60);
    /** The wait after a 503 that carries no {@code Retry-After}, and after a refused connection. */
    private static final long BACKOFF_MS = 200;

    private final ReplicaCluster cluster;
    private final List<String> boards;
    private final int writers;
    private final int writesPerWriter;
    private final List<Ack> acks = Collections.synchronizedList(new ArrayList<>());
    private final Map<Integer, AtomicInteger> statuses = new ConcurrentHashMap<>();
    private final AtomicInteger timeouts = new AtomicInteger();
    private final AtomicInteger unreachable = new AtomicInteger();
    private final AtomicInteger abandoned = new AtomicInteger();
    private final List<String> badProblems = Collections.synchronizedList(new ArrayList<>());
    private final List<String> refusals = Collections.synchronizedList(new ArrayList<>());
    private final Map<Integer, CountDownLatch> triggers = new ConcurrentHashMap<>();

    ClusterLoad(ReplicaCluster cluster, List<String> boards, int writers, int writesPerWriter) {
        this.cluster = cluster;
        this.boards = List.copyOf(boards);
        this.writers = writers;
        this.writesPerWriter = writesPerWriter;
    }

    /** Creates {@code count} boards through replica 0 and returns their ids. */
    static List<String> createBoards(ReplicaCluster cluster, int count) {
        Http http = cluster.http(0, REQUEST_TIMEOUT);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            ids.add(http.postJson("/api/boards", Http.obj("name", "cluster-" + i)).expect(201).path("id").asText());
        }
        return ids;
    }

    /** A latch that opens once {@code count} writes have been acknowledged; ask before {@link #run}. */
    CountDownLatch acknowledged(int count) {
        return triggers.computeIfAbsent(count, CountDownLatch::new);
    }

    /** Starts the writers and returns a future that completes when all have finished. */
    Future<?> start() {
        ExecutorService pool = Executors.newFixedThreadPool(writers, r -> {
            Thread t = new Thread(r, "cluster-writer");
            t.setDaemon(true);
            return t;
        });
        List<Future<?>> all = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            int writer = w;
            all.add(pool.submit(() -> write(writer)));
        }
        pool.shutdown();
        return Executors.newSingleThreadExecutor().submit(() -> {
            for (Future<?> f : all) {
                f.get(15, TimeUnit.MINUTES);
            }
            return null;
        });
    }

    /** Runs the writers to the end (bounded). */
    void run() throws Exception {
        start().get(15, TimeUnit.MINUTES);
    }

    private void write(int writer) {
        int n = cluster.size();
        List<Http> clients = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            clients.add(cluster.http(i, REQUEST_TIMEOUT));
        }
        int replica = writer % n;
        for (int k = 0; k < writesPerWriter; k++) {
            String board = boards.get((writer + k) % boards.size());
            String text = "w" + writer + "-" + k;
            boolean done = false;
            long giveUpAt = System.nanoTime() + GIVE_UP_AFTER.toNanos();
            while (!done && System.nanoTime() - giveUpAt < 0) {
                try {
                    Http.Response r = clients.get(replica).postJson("/api/boards/" + board + "/notes", Http.obj("text", text));
                    statuses.computeIfAbsent(r.status(), s -> new AtomicInteger()).incrementAndGet();
                    if (r.status() == 201) {
                        JsonNode note = r.json();
                        record(new Ack(board, note.path("id").asText(), text, replica));
                        done = true;
                    } else if (r.status() == 503) {
                        if (!r.contentType().startsWith("application/problem+json")) {
                            badProblems.add(r.contentType() + " " + r.abbreviated());
                        } else {
                            refusals.add(r.json().path("detail").asText());
                        }
                        replica = (replica + 1) % n;
                        DemoProcess.sleep(retryAfterMillis(r));
                    } else {
                        throw new AssertionError("unexpected answer to a write: " + r.status() + " " + r.abbreviated());
                    }
                } catch (java.io.UncheckedIOException e) {
                    if (e.getCause() instanceof HttpTimeoutException) {
                        timeouts.incrementAndGet();
                    } else {
                        unreachable.incrementAndGet();
                    }
                    replica = (replica + 1) % n;
                    // A refused connection answers at once: back off a little before the next replica.
                    DemoProcess.sleep(BACKOFF_MS);
                }
            }
            if (!done) {
                abandoned.incrementAndGet();
            }
        }
    }

    /** The 503's {@code Retry-After} in milliseconds (whole seconds, RFC 9110), else {@link #BACKOFF_MS}. */
    private static long retryAfterMillis(Http.Response r) {
        return r.header("Retry-After").map(String::trim).filter(v -> v.matches("\\d{1,3}"))
                .map(v -> Long.parseLong(v) * 1000).orElse(BACKOFF_MS);
    }

    private void record(Ack ack) {
        acks.add(ack);
        int count = acks.size();
        triggers.forEach((threshold, latch) -> {
            if (count >= threshold) {
                latch.countDown();
            }
        });
    }

    List<Ack> acks() {
        synchronized (acks) {
            return List.copyOf(acks);
        }
    }

    Map<Integer, AtomicInteger> statuses() {
        return statuses;
    }

    /** Requests that took longer than {@link #REQUEST_TIMEOUT}: a hang. */
    int timeouts() {
        return timeouts.get();
    }

    /** Connections refused or reset (a replica that is down). */
    int unreachable() {
        return unreachable.get();
    }

    /** Writes given up after every attempt failed. */
    int abandoned() {
        return abandoned.get();
    }

    /** The details of the 503 problems answered, in order. */
    List<String> refusals() {
        synchronized (refusals) {
            return List.copyOf(refusals);
        }
    }

    /** 503 answers that were not problem JSON. */
    List<String> badProblems() {
        return badProblems;
    }

    String summary() {
        return acks.size() + " acknowledged, statuses " + statuses + ", timeouts " + timeouts + ", unreachable "
                + unreachable + ", abandoned " + abandoned;
    }

    /**
     * Every acknowledged write is on replica {@code i} with its id and text (one GET per board).
     *
     * @return the acknowledged writes that are missing (empty when none is lost)
     */
    static List<Ack> missing(ReplicaCluster cluster, int i, List<Ack> acks) {
        Http http = cluster.http(i, REQUEST_TIMEOUT);
        Map<String, Map<String, String>> notesByBoard = new java.util.HashMap<>();
        List<Ack> missing = new ArrayList<>();
        for (Ack a : acks) {
            Map<String, String> notes = notesByBoard.computeIfAbsent(a.boardId(), b -> {
                Map<String, String> m = new java.util.HashMap<>();
                for (JsonNode n : http.get("/api/boards/" + b).expect(200).path("notes")) {
                    m.put(n.path("id").asText(), n.path("text").asText());
                }
                return m;
            });
            if (!a.text().equals(notes.get(a.noteId()))) {
                missing.add(a);
            }
        }
        return missing;
    }
}
