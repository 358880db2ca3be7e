package dev.corobridge.demo.board;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

import dev.corobridge.demo.changelog.kafka.BoardPartitioner;
import dev.corobridge.pump.ManualPump;
import dev.corobridge.test.CorobridgeTest;

/**
 * A cluster replica's store is a deterministic state machine: replicas that apply the same commands
 * in the same per-partition order, whichever replica prepared them and however the partitions
 * interleave, reach identical boards, give every applied note the same id and revision, and refuse
 * the same commands (races and limits). The journal's store keeps its process-wide ids.
 */
@CorobridgeTest(pumpName = "cluster-store-test")
class ClusterStoreTest {

    private static final int PARTITIONS = 4;
    private static final BoardPartitioner PARTITIONER = new BoardPartitioner(PARTITIONS);

    private final ManualPump pump;

    ClusterStoreTest(ManualPump pump) {
        this.pump = pump;
    }

    private BoardStore replica() {
        return BoardStore.forCluster(pump, PARTITIONER::partitionOf, PARTITIONS);
    }

    @Test
    void replicasApplyingOnePerPartitionOrderInAnyInterleavingReachIdenticalBoards() {
        BoardStore a = replica();
        BoardStore b = replica();
        BoardStore[] preparers = {a, b};
        // The log: per partition, the commands in the order the broker took them.
        List<List<Change>> log = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            log.add(new ArrayList<>());
        }
        Random random = new Random(42);
        List<String> boards = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            // Each replica prepares against its own state; a shared "broker" orders the commands,
            // and the reference replica applies as it goes (so later prepares see earlier boards).
            BoardStore preparer = preparers[i % 2];
            Change.CreateBoard c = preparer.prepareCreateBoard("board " + i);
            log.get(PARTITIONER.partitionOf(c.boardId())).add(c);
            a.apply(c);
            b.apply(c);
            boards.add(c.boardId());
        }
        List<Change> notes = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            String board = boards.get(random.nextInt(boards.size()));
            Change add = preparers[i % 2].prepareAddNote(board, "note " + i);
            assertThat(((Change.AddNote) add).noteId()).as("decided at apply").isEqualTo(Change.AddNote.ID_AT_APPLY);
            notes.add(add);
        }
        // Two edits of the same note at the same version, prepared on different replicas: one wins.
        notes.add(new Change.EditNote(boards.getFirst(), "n1", "edit from a", 1));
        notes.add(new Change.EditNote(boards.getFirst(), "n1", "edit from b", 1));
        notes.add(new Change.DeleteNote(boards.get(1), "n2", Change.ANY_VERSION));
        for (Change c : notes) {
            log.get(PARTITIONER.partitionOf(c.boardId())).add(c);
        }

        List<String> resultsA = applyInterleaved(replica(), log, new Random(1), a);
        List<String> resultsB = applyInterleaved(replica(), log, new Random(2), b);
        assertThat(resultsA).isEqualTo(resultsB);
        assertThat(state(a)).isEqualTo(state(b)).isNotEmpty();
        assertThat(resultsA).contains("rejected: CONFLICT"); // the losing edit
    }

    /**
     * Applies the creates already in {@code target} and then the rest of the log to a fresh replica
     * in a random interleaving of the partitions, each partition in order; returns what each apply
     * answered, per partition in order (the answer the writer's replica gives).
     */
    private static List<String> applyInterleaved(BoardStore fresh, List<List<Change>> log, Random random,
                                                 BoardStore target) {
        Map<Integer, List<String>> answers = new TreeMap<>();
        int[] next = new int[log.size()];
        int left = log.stream().mapToInt(List::size).sum();
        while (left > 0) {
            int p = random.nextInt(log.size());
            if (next[p] == log.get(p).size()) {
                continue;
            }
            Change c = log.get(p).get(next[p]++);
            left--;
            String answer = answer(fresh, c);
            answers.computeIfAbsent(p, k -> new ArrayList<>()).add(answer);
            if (!(c instanceof Change.CreateBoard)) {
                assertThat(answer(target, c)).isEqualTo(answer);
            }
        }
        assertThat(state(fresh)).isEqualTo(state(target));
        List<String> out = new ArrayList<>();
        answers.values().forEach(out::addAll);
        return out;
    }

    private static String answer(BoardStore store, Change c) {
        try {
            Applied applied = store.apply(c);
            return applied.note() != null
                    ? applied.note().id() + "@" + applied.note().version() + " rev " + applied.event().revision()
                    : "board " + applied.board().id();
        } catch (BoardException e) {
            return "rejected: " + e.kind();
        }
    }

    /** Every board by id (the list order may differ between replicas: partitions interleave). */
    private static Map<String, BoardState> state(BoardStore store) {
        Map<String, BoardState> out = new TreeMap<>();
        store.exportBoards().forEach(s -> out.put(s.id(), s));
        return out;
    }

    @Test
    void noteIdsAreNumberedPerBoardAtApplyAndNeverReused() {
        BoardStore s = replica();
        String b1 = s.apply(s.prepareCreateBoard("one")).board().id();
        String b2 = s.apply(s.prepareCreateBoard("two")).board().id();
        assertThat(b1).matches("b[1-9][0-9]{18}").isNotEqualTo(b2);
        assertThat(s.apply(s.prepareAddNote(b1, "x")).note().id()).isEqualTo("n1");
        assertThat(s.apply(s.prepareAddNote(b2, "y")).note().id()).isEqualTo("n1");
        assertThat(s.apply(s.prepareAddNote(b1, "z")).note().id()).isEqualTo("n2");
        s.apply(s.prepareDeleteNote(b1, "n2", Change.ANY_VERSION));
        assertThat(s.apply(s.prepareAddNote(b1, "w")).note().id()).as("a deleted note's id is not reused").isEqualTo("n3");
    }

    @Test
    void aBoardIdThatClashesIsRefusedAtApplyAlikeOnEveryReplica() {
        BoardStore a = replica();
        BoardStore b = replica();
        Change.CreateBoard first = new Change.CreateBoard("b0000000000000001", "first");
        Change.CreateBoard clash = new Change.CreateBoard("b0000000000000001", "second");
        for (BoardStore s : List.of(a, b)) {
            s.apply(first);
            assertThatThrownBy(() -> s.apply(clash)).isInstanceOf(BoardException.class);
            assertThat(s.snapshot(first.boardId()).name()).isEqualTo("first");
        }
    }

    /**
     * A record on the topic that no replica made (another producer's) and that breaks what the API
     * accepts is refused at apply, alike on every replica, and changes nothing: a board id that is
     * not one, a blank or too long name or text, a control character, and a note that brings its
     * own id (a replica's notes are numbered at apply; one with its own id, sent twice, replaced the
     * first). What the API accepts is still applied.
     */
    @Test
    void aChangeTheApiWouldRefuseIsRefusedAtApplyAlikeOnEveryReplica() {
        BoardStore a = replica();
        BoardStore b = replica();
        String board = "b1000000000000000001";
        List<Change> refused = List.of(
                new Change.CreateBoard("notanid", "x"),
                new Change.CreateBoard("b12345678901234567890", "x"),
                new Change.CreateBoard("b2000000000000000002", " "),
                new Change.CreateBoard("b2000000000000000002", "x".repeat(101)),
                new Change.CreateBoard("b2000000000000000002", "a\u0000b"),
                new Change.AddNote(board, "n5", "own id"),
                new Change.AddNote(board, Change.AddNote.ID_AT_APPLY, "\t\n"),
                new Change.AddNote(board, Change.AddNote.ID_AT_APPLY, "y".repeat(2001)),
                new Change.AddNote(board, Change.AddNote.ID_AT_APPLY, "half \uD800 a pair"),
                new Change.EditNote(board, "n1", "", 1),
                new Change.EditNote(board, "n1", "z".repeat(2001), 1));
        for (BoardStore s : List.of(a, b)) {
            s.apply(new Change.CreateBoard(board, "ok"));
            s.apply(new Change.AddNote(board, Change.AddNote.ID_AT_APPLY, "first"));
            List<BoardState> before = s.exportBoards();
            long[] counts = s.changeCounts();
            for (Change c : refused) {
                assertThatThrownBy(() -> s.apply(c)).as("%s", c).isInstanceOf(BoardException.class)
                        .satisfies(e -> assertThat(((BoardException) e).kind()).isEqualTo(BoardException.Kind.INVALID));
            }
            assertThat(s.exportBoards()).usingRecursiveComparison().isEqualTo(before);
            assertThat(s.changeCounts()).containsExactly(counts[0], counts[1] + refused.size());
            assertThat(s.apply(new Change.AddNote(board, Change.AddNote.ID_AT_APPLY, "x".repeat(2000))).note().id())
                    .isEqualTo("n2");
            assertThat(s.apply(new Change.CreateBoard("b1", "y".repeat(100))).board().id()).isEqualTo("b1");
        }
        assertThat(a.exportBoards()).usingRecursiveComparison().isEqualTo(b.exportBoards());
    }

    @Test
    void theNoteLimitIsDecidedAtApply() {
        BoardStore s = replica();
        String b = s.apply(s.prepareCreateBoard("full")).board().id();
        // Prepared while the board had room: the apply, not the prepare, decides.
        List<Change> adds = new ArrayList<>();
        for (int i = 0; i <= BoardStore.MAX_NOTES_PER_BOARD; i++) {
            adds.add(s.prepareAddNote(b, "note " + i));
        }
        for (int i = 0; i < BoardStore.MAX_NOTES_PER_BOARD; i++) {
            s.apply(adds.get(i));
        }
        BoardException refused = (BoardException) org.assertj.core.api.Assertions.catchThrowable(
                () -> s.apply(adds.getLast()));
        assertThat(refused.kind()).isEqualTo(BoardException.Kind.CONFLICT);
        assertThat(s.snapshot(b).notes()).hasSize(BoardStore.MAX_NOTES_PER_BOARD);
    }

    @Test
    void theBoardLimitIsKeptPerPartitionSoEveryReplicaCountsAlike() {
        BoardStore s = BoardStore.forCluster(pump, PARTITIONER::partitionOf, PARTITIONS);
        int limit = s.boardsPerPartitionLimit();
        assertThat(limit).isEqualTo((BoardStore.MAX_BOARDS + PARTITIONS - 1) / PARTITIONS);
        int created = 0;
        int refused = 0;
        for (long i = 0; created + refused < limit + 5 || refused == 0; i++) {
            String id = "b" + (1_000_000_000_000_000_000L + i);
            if (PARTITIONER.partitionOf(id) != 0) {
                continue;
            }
            try {
                s.apply(new Change.CreateBoard(id, "p0"));
                created++;
            } catch (BoardException e) {
                refused++;
            }
        }
        assertThat(created).isEqualTo(limit);
        // Another partition still has room.
        for (long i = 1L << 40; ; i++) {
            String id = "b" + (1_000_000_000_000_000_000L + i);
            if (PARTITIONER.partitionOf(id) == 1) {
                assertThat(s.apply(new Change.CreateBoard(id, "p1")).board().id()).isEqualTo(id);
                break;
            }
        }
    }

    @Test
    void aSnapshotLoadedIntoAnEmptyStoreContinuesExactlyAsTheOriginal() {
        BoardStore original = replica();
        String b = original.apply(original.prepareCreateBoard("snap")).board().id();
        original.apply(original.prepareAddNote(b, "one"));
        original.apply(original.prepareAddNote(b, "two"));
        original.apply(new Change.DeleteNote(b, "n2", Change.ANY_VERSION));
        BoardStore loaded = replica();
        loaded.importBoards(original.exportBoards());
        Change next = original.prepareAddNote(b, "three");
        assertThat(answer(loaded, next)).isEqualTo(answer(original, next)).isEqualTo("n3@1 rev 4");
        assertThat(state(loaded)).isEqualTo(state(original));
        assertThatThrownBy(() -> loaded.importBoards(original.exportBoards())).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void theJournalsStoreKeepsProcessWideIdsAndRefusesAnIdLeftToTheApply() {
        BoardStore journal = new BoardStore(pump);
        assertThat(journal.decidesAtApply()).isFalse();
        assertThat(journal.prepareCreateBoard("x").boardId()).isEqualTo("b1");
        journal.apply(new Change.CreateBoard("b1", "x"));
        assertThat(journal.prepareAddNote("b1", "y").noteId()).isEqualTo("n1");
        assertThatThrownBy(() -> journal.apply(new Change.AddNote("b1", Change.AddNote.ID_AT_APPLY, "y")))
                .isInstanceOf(IllegalArgumentException.class);
        BoardStore reloaded = new BoardStore(pump);
        journal.apply(new Change.AddNote("b1", "n7", "y"));
        reloaded.importBoards(journal.exportBoards());
        assertThat(reloaded.prepareCreateBoard("z").boardId()).isEqualTo("b2");
        assertThat(reloaded.prepareAddNote("b1", "z").noteId()).isEqualTo("n8");
        List<BoardState> states = new ArrayList<>(reloaded.exportBoards());
        states.sort(Comparator.comparing(BoardState::id));
        assertThat(states).singleElement().satisfies(st -> assertThat(st.notesAdded()).isEqualTo(1));
    }
}
