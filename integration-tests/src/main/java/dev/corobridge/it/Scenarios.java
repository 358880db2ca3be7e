package dev.corobridge.it;

import com.fasterxml.jackson.databind.JsonNode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The HTTP scenarios of the notes board (web-demo/API.md), written against a base URL only, so
 * the same code checks the service started as a process (failsafe tests), in a container (the
 * test-client container, by service name) and from the host (by published port).
 *
 * <p>Every scenario makes its own boards, so scenarios may run in any order against one service,
 * including one that already holds data.
 */
public final class Scenarios {

    /** The two faces of the same API: the Java controller and the Kotlin one. */
    public static final List<String> FACES = List.of("/api", "/api/kt");

    private static final Duration SSE_WAIT = Duration.ofSeconds(15);

    private final Http http;

    public Scenarios(Http http) {
        this.http = http;
    }

    /** Every scenario by name, in the order the client runs them. */
    public Map<String, Runnable> all() {
        Map<String, Runnable> m = new LinkedHashMap<>();
        m.put("ping", this::ping);
        m.put("full flow (Java face)", () -> fullFlow("/api"));
        m.put("full flow (Kotlin face)", () -> fullFlow("/api/kt"));
        m.put("both faces change the same boards", this::facesShareBoards);
        m.put("SSE: every change in order", this::sseOrder);
        m.put("hop traces: pump for model steps, ring for journal steps", this::hopTraces);
        m.put("live metrics and transport", this::liveReport);
        m.put("bad input sweep", () -> {
            BadInput.Result r = new BadInput(http).sweep();
            r.assertAllPassed();
        });
        return m;
    }

    // ---------------------------------------------------------------- readiness

    /** True when the readiness group reports UP. */
    public static boolean ready(Http http) {
        try {
            Http.Response r = http.get("/actuator/health/readiness");
            return r.status() == 200 && r.body().contains("\"UP\"");
        } catch (RuntimeException e) {
            return false;
        }
    }

    // ---------------------------------------------------------------- helpers

    public JsonNode createBoard(String face, String name) {
        Http.Response r = http.postJson(face + "/boards", Http.obj("name", name));
        JsonNode b = r.expect(201);
        String id = b.path("id").asText();
        Check.that(id.matches("b\\d+"), "board id '%s' is not b<number>", id);
        Check.equal(r.header("Location").orElse(null), face + "/boards/" + id, "Location of the new board");
        Check.equal(b.path("name").asText(), name, "board name");
        Check.equal(b.path("revision").asLong(-1), 0L, "revision of a new board");
        Check.that(b.path("notes").isArray() && b.path("notes").isEmpty(), "a new board has no notes: %s", b);
        return b;
    }

    public JsonNode addNote(String face, String boardId, String text) {
        Http.Response r = http.postJson(face + "/boards/" + boardId + "/notes", Http.obj("text", text));
        JsonNode n = r.expect(201);
        String id = n.path("id").asText();
        Check.that(id.matches("n\\d+"), "note id '%s' is not n<number>", id);
        Check.equal(r.header("Location").orElse(null), face + "/boards/" + boardId + "/notes/" + id, "Location of the new note");
        Check.equal(n.path("boardId").asText(), boardId, "note boardId");
        Check.equal(n.path("text").asText(), text, "note text");
        Check.equal(n.path("version").asLong(), 1L, "version of a new note");
        return n;
    }

    public JsonNode board(String face, String boardId) {
        return http.get(face + "/boards/" + boardId).expect(200);
    }

    // ---------------------------------------------------------------- scenarios

    public void ping() {
        Http.Response r = http.get("/api/ping");
        JsonNode j = r.expect(200);
        Check.that(j.path("ok").asBoolean(false), "ping says ok: %s", j);
        HopTrace t = r.hopTrace();
        Check.that(!t.anyOnPump() && !t.anyOnRing(), "ping makes no hop, but: %s", t);
    }

    public void fullFlow(String face) {
        String name = "Groceries " + face + " " + System.nanoTime();
        JsonNode b = createBoard(face, name);
        String id = b.path("id").asText();

        JsonNode list = http.get(face + "/boards").expect(200);
        Check.that(list.isArray(), "board list is an array");
        List<String> ids = new ArrayList<>();
        list.forEach(x -> ids.add(x.path("id").asText()));
        Check.that(ids.contains(id), "board list %s contains %s", ids, id);
        Check.that(isAscending(ids), "boards are listed in creation order: %s", ids);

        JsonNode milk = addNote(face, id, "milk");
        JsonNode eggs = addNote(face, id, "eggs and more eggs");
        JsonNode bread = addNote(face, id, "bread ✓ — brød, パン");
        Check.that(!milk.path("id").equals(eggs.path("id")), "note ids differ");

        // Edit with the right version, then with a stale one.
        String milkPath = face + "/boards/" + id + "/notes/" + milk.path("id").asText();
        JsonNode edited = http.putJson(milkPath, Http.obj("text", "oat milk", "expectedVersion", 1)).expect(200);
        Check.equal(edited.path("version").asLong(), 2L, "version after one edit");
        Check.equal(edited.path("text").asText(), "oat milk", "edited text");
        Http.Response stale = http.putJson(milkPath, Http.obj("text", "cow milk", "expectedVersion", 1));
        BadInput.checkProblem(stale, Set.of(409));

        // Delete: stale version refused, then right version, then the note is gone.
        String eggsPath = face + "/boards/" + id + "/notes/" + eggs.path("id").asText();
        BadInput.checkProblem(http.delete(eggsPath + "?expectedVersion=7"), Set.of(409));
        Http.Response del = http.delete(eggsPath + "?expectedVersion=1");
        Check.equal(del.status(), 204, "DELETE " + eggsPath + " status (" + del.abbreviated() + ")");
        BadInput.checkProblem(http.delete(eggsPath), Set.of(404));

        JsonNode snap = board(face, id);
        Check.equal(snap.path("revision").asLong(), 5L, "revision after 3 adds, 1 edit, 1 delete");
        Map<String, String> texts = new LinkedHashMap<>();
        snap.path("notes").forEach(n -> texts.put(n.path("id").asText(), n.path("text").asText()));
        Check.equal(texts, Map.of(milk.path("id").asText(), "oat milk", bread.path("id").asText(), "bread ✓ — brød, パン"),
                "notes of the board");

        JsonNode stats = http.get(face + "/boards/" + id + "/stats").expect(200);
        Check.equal(stats.path("boardId").asText(), id, "stats boardId");
        Check.equal(stats.path("revision").asLong(), 5L, "stats revision");
        Check.equal(stats.path("notes").asLong(), 2L, "stats notes");
        Check.that(stats.path("words").asLong() >= 5, "stats words >= 5: %s", stats);
        Check.that(stats.path("topWords").isArray(), "stats topWords is an array: %s", stats);

        // A name that looks like a path is just a name.
        JsonNode odd = createBoard(face, "../../etc/passwd");
        Check.equal(board(face, odd.path("id").asText()).path("name").asText(), "../../etc/passwd", "a path-like name is kept as text");
    }

    public void facesShareBoards() {
        JsonNode b = createBoard("/api", "shared " + System.nanoTime());
        String id = b.path("id").asText();
        addNote("/api/kt", id, "from Kotlin");
        addNote("/api", id, "from Java");
        JsonNode viaJava = board("/api", id);
        JsonNode viaKotlin = board("/api/kt", id);
        Check.equal(viaKotlin, viaJava, "the same board through both faces");
        Check.equal(viaJava.path("revision").asLong(), 2L, "revision");
    }

    /**
     * One subscriber opens the stream, then four writers make changes concurrently through both
     * faces; the subscriber must see one event per change, ids consecutive from the snapshot's
     * revision, each acknowledged note among them, and a second subscriber sees the same sequence.
     */
    public void sseOrder() {
        String id = createBoard("/api", "sse " + System.nanoTime()).path("id").asText();
        addNote("/api", id, "before the subscription");
        try (SseStream a = SseStream.open(http, "/api/boards/" + id + "/events");
             SseStream k = SseStream.open(http, "/api/kt/boards/" + id + "/events")) {
            for (SseStream s : List.of(a, k)) {
                Check.equal(s.status(), 200, "events status");
                Check.that(s.contentType().startsWith("text/event-stream"), "events content type: %s", s.contentType());
            }
            SseStream.Event snapA = a.next(SSE_WAIT);
            SseStream.Event snapK = k.next(SSE_WAIT);
            Check.equal(snapA.type(), "snapshot", "first event");
            Check.equal(snapK.type(), "snapshot", "first event (Kotlin face)");
            long start = snapA.json().path("revision").asLong();
            Check.equal(start, 1L, "snapshot revision");
            Check.equal(snapA.json().path("notes").size(), 1, "notes in the snapshot");

            int writers = 4;
            int perWriter = 15;
            Set<String> acked = ConcurrentHashMap.newKeySet();
            try (ExecutorService ex = Executors.newVirtualThreadPerTaskExecutor()) {
                List<Future<?>> fs = new ArrayList<>();
                for (int w = 0; w < writers; w++) {
                    int writer = w;
                    fs.add(ex.submit(() -> {
                        String face = FACES.get(writer % 2);
                        for (int i = 0; i < perWriter; i++) {
                            JsonNode n = addNote(face, id, "w" + writer + "-" + i);
                            acked.add(n.path("id").asText());
                            if (i % 5 == 4) { // an edit and, every other time, a delete
                                String p = face + "/boards/" + id + "/notes/" + n.path("id").asText();
                                http.putJson(p, Http.obj("text", "w" + writer + "-" + i + " edited", "expectedVersion", 1)).expect(200);
                                if (i % 10 == 9) {
                                    Check.equal(http.delete(p).status(), 204, "delete status");
                                }
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> f : fs) {
                    f.get();
                }
            } catch (Exception e) {
                throw new AssertionError("writers failed: " + e, e);
            }
            long changes = (long) writers * perWriter + writers * 3L /* edits */ + writers /* deletes */;
            long last = start + changes;
            Check.equal(board("/api", id).path("revision").asLong(), last, "final revision");

            List<SseStream.Event> seenA = collect(a, changes);
            List<SseStream.Event> seenK = collect(k, changes);
            Set<String> added = new java.util.HashSet<>();
            for (int i = 0; i < seenA.size(); i++) {
                SseStream.Event e = seenA.get(i);
                long rev = start + 1 + i;
                Check.equal(e.id(), Long.toString(rev), "SSE id of change " + (i + 1));
                JsonNode d = e.json();
                Check.equal(d.path("revision").asLong(), rev, "revision in the data of event " + e.id());
                Check.equal(d.path("type").asText(), e.type(), "type in the data of event " + e.id());
                Check.that(Set.of("note-added", "note-edited", "note-deleted").contains(e.type()), "event type %s", e.type());
                Check.equal(d.path("boardId").asText(), id, "boardId of event " + e.id());
                if (e.type().equals("note-added")) {
                    added.add(d.path("note").path("id").asText());
                }
            }
            Check.equal(added, acked, "notes added per the events vs acknowledged notes");
            Check.equal(seenK.stream().map(SseStream.Event::data).toList(), seenA.stream().map(SseStream.Event::data).toList(),
                    "both subscribers see the same sequence");
        }
    }

    private static List<SseStream.Event> collect(SseStream s, long count) {
        List<SseStream.Event> out = new ArrayList<>();
        while (out.size() < count) {
            out.add(s.next(SSE_WAIT));
        }
        return out;
    }

    /** Model steps on the pump, journal steps on a ring thread, for both faces. */
    public void hopTraces() {
        for (String face : FACES) {
            Http.Response create = http.postJson(face + "/boards", Http.obj("name", "hops " + face));
            String id = create.expect(201).path("id").asText();
            checkWriteTrace(create);
            Http.Response add = http.postJson(face + "/boards/" + id + "/notes", Http.obj("text", "hop"));
            String noteId = add.expect(201).path("id").asText();
            checkWriteTrace(add);
            Http.Response edit = http.putJson(face + "/boards/" + id + "/notes/" + noteId, Http.obj("text", "hop hop", "expectedVersion", 1));
            edit.expect(200);
            checkWriteTrace(edit);

            Http.Response read = http.get(face + "/boards/" + id);
            read.expect(200);
            HopTrace rt = read.hopTrace();
            Check.that(rt.anyOnPump(), "%s: a read runs its model step on the pump: %s", read.request(), rt);
            Check.that(!rt.anyOnRing(), "%s: a read touches no ring: %s", read.request(), rt);
            checkPumpSteps(read.request(), rt);

            Http.Response stats = http.get(face + "/boards/" + id + "/stats");
            stats.expect(200);
            HopTrace st = stats.hopTrace();
            Check.that(st.anyOnPump(), "%s: stats are checked on the pump: %s", stats.request(), st);
            Check.that(st.steps().stream().anyMatch(s -> !s.onPump() && !s.onRing() && !s.context().equals("http")),
                    "%s: stats are computed off the pump and off the rings (CPU dispatcher): %s", stats.request(), st);
            Check.that(st.steps().getLast().onPump(), "%s: the last stats step is the check on the pump: %s", stats.request(), st);

            Http.Response bad = http.postJson(face + "/boards/" + id + "/notes", Http.obj("text", ""));
            Check.equal(bad.status(), 400, bad.request() + " status");
            Check.that(!bad.hopTrace().anyOnRing(), "%s: a rejected change never reaches the journal: %s", bad.request(), bad.hopTrace());
        }
    }

    private static void checkWriteTrace(Http.Response r) {
        HopTrace t = r.hopTrace();
        Check.that(t.present(), "%s: no Hop-Trace header", r.request());
        Check.that(t.anyOnPump(), "%s: a change runs model steps on the pump: %s", r.request(), t);
        Check.that(t.anyOnRing(), "%s: a change is journalled on a ring thread: %s", r.request(), t);
        checkPumpSteps(r.request(), t);
        for (HopTrace.Step s : t.steps()) {
            if (s.note() != null && s.note().contains("journal")) {
                Check.that(s.onRing(), "%s: journal step %s runs on a ring thread: %s", r.request(), s, t);
            }
        }
        // The change is applied to the model after the journal said it is durable.
        int lastRing = -1;
        int lastPump = -1;
        for (int i = 0; i < t.steps().size(); i++) {
            if (t.steps().get(i).onRing()) {
                lastRing = i;
            }
            if (t.steps().get(i).onPump()) {
                lastPump = i;
            }
        }
        Check.that(lastPump > lastRing, "%s: the model is updated on the pump after the journal step: %s", r.request(), t);
    }

    /** A step whose context is the pump ran on the pump thread, and so on for rings. */
    private static void checkPumpSteps(String request, HopTrace t) {
        for (HopTrace.Step s : t.steps()) {
            if (HopTrace.PUMP.matcher(s.context()).matches()) {
                Check.that(s.onPump(), "%s: step %s has the pump's context but ran on %s: %s", request, s, s.thread(), t);
            }
            if (HopTrace.RING.matcher(s.context()).matches()) {
                Check.that(s.onRing(), "%s: step %s has a ring's context but ran on %s: %s", request, s, s.thread(), t);
            }
        }
    }

    /** GET /api/live: the shape, and the transport with a reason when it is not io_uring. */
    public JsonNode liveReport() {
        JsonNode live = http.get("/api/live").expect(200);
        String transport = live.path("transport").asText("");
        Check.that(!transport.isEmpty(), "live reports a transport: %s", live);
        if (!transport.equalsIgnoreCase("io_uring")) {
            Check.that(live.hasNonNull("fallbackReason") && !live.path("fallbackReason").asText().isBlank(),
                    "transport %s without io_uring must say why (fallbackReason): %s", transport, live);
        }
        for (String f : List.of("queueDepth", "dispatches", "wakeups", "wakeupsPerDispatch")) {
            Check.that(live.path("pump").has(f), "live.pump.%s missing: %s", f, live);
        }
        for (String f : List.of("changes", "fsyncs", "fsyncsPerChange", "bytes")) {
            Check.that(live.path("journal").has(f), "live.journal.%s missing: %s", f, live);
        }
        Check.that(live.path("ring").has("rings"), "live.ring.rings missing: %s", live);
        return live;
    }

    /** Every board with its notes, ordered, for before/after comparisons. */
    public JsonNode snapshotAll() {
        JsonNode list = http.get("/api/boards").expect(200);
        return list;
    }

    private static boolean isAscending(List<String> ids) {
        List<Long> nums = new ArrayList<>();
        for (String id : ids) {
            nums.add(Long.parseLong(id.substring(1)));
        }
        List<Long> sorted = new ArrayList<>(nums);
        Collections.sort(sorted);
        return nums.equals(sorted);
    }
}
