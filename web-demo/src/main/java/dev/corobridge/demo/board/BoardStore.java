package dev.corobridge.demo.board;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.ToIntFunction;

import dev.corobridge.bridge.Promise;
import dev.corobridge.pump.MessagePump;
import dev.corobridge.pump.PumpTimer;

/**
 * The boards and their notes: state owned by the UI-affinity pump.
 *
 * <p><b>Thread-safety.</b> None inside: every public method checks that it runs on the pump
 * ({@link MessagePump#checkAccess()}) and throws {@link IllegalStateException} otherwise, so a
 * caller on the wrong thread fails loudly instead of racing. Values handed out (snapshots, notes,
 * events) are immutable and may travel to any thread.
 *
 * <p><b>Two steps per change.</b> {@code prepare*} checks a request against the current state and
 * builds a {@link Change} with fresh ids, without changing anything; the change is then made
 * durable and {@link #apply(Change)} carries it out, in journal order. {@code apply} checks again,
 * since other changes may have been applied in between; replaying the journal calls the same
 * {@code apply}, so a restarted service rebuilds exactly the boards it acknowledged.
 *
 * <p><b>Ids and limits: two schemes.</b> The store of one process (the journal's) numbers boards and
 * notes from process-wide counters at prepare ({@code b1}, {@code n1}, ...), set past every id seen
 * on replay; the limits are checked at prepare. The store of a cluster replica ({@link #forCluster})
 * must reach the same result as every other replica for the same command, whichever replica
 * prepared it: a board's id is drawn at prepare at random ({@code b} and 19 random digits, about 63 bits;
 * a clash is refused at apply, the same on every replica, since one board's commands share a
 * partition); a note's id is decided at apply from its board's own counter ({@code n1}, {@code n2},
 * ... per board), and both limits are checked at apply too. Boards live on several partitions,
 * whose relative order differs between replicas, so the board limit is kept per partition
 * ({@code ceil(MAX_BOARDS / partitions)} each): a count over all partitions could differ between
 * replicas at the moment of an apply.
 *
 * <p><b>Subscribers</b> ({@link BoardListener}) and <b>waiters</b> (long polls) are told of each
 * applied change, on the pump, in revision order; <b>list subscribers</b> ({@link BoardListListener})
 * get the changed board's line of the list after each applied change.
 */
public final class BoardStore {

    /** Most boards; a request for more is refused. */
    public static final int MAX_BOARDS = 10_000;
    /** Most notes per board. */
    public static final int MAX_NOTES_PER_BOARD = 10_000;

    private final MessagePump pump;
    private final Map<String, Board> boards = new LinkedHashMap<>();
    private final List<BoardListListener> listListeners = new ArrayList<>();
    /** Cluster mode: the partition of a board id; {@code null} for the store of one process. */
    private final ToIntFunction<String> partitionOf;
    /** Cluster mode: boards created per partition (for the per-partition board limit). */
    private final int[] boardsPerPartition;
    /** The store of one process: boards held by {@link #reserve} and not yet released. */
    private int boardsUnderWay;
    private long nextBoard = 1;
    private long nextNote = 1;
    private long changesApplied;
    private long changesRejected;
    private boolean closed;

    /** The store of one process: ids from process-wide counters, decided at prepare. */
    public BoardStore(MessagePump pump) {
        this(pump, null, 0);
    }

    private BoardStore(MessagePump pump, ToIntFunction<String> partitionOf, int partitions) {
        this.pump = pump;
        this.partitionOf = partitionOf;
        this.boardsPerPartition = new int[partitions];
    }

    /**
     * The store of a cluster replica: ids and limits decided so that every replica applying the
     * same commands in the same per-partition order reaches the same boards (see the class comment).
     *
     * @param partitionOf the partition a board's commands go to (the log's partitioner)
     * @param partitions  the log's partitions
     */
    public static BoardStore forCluster(MessagePump pump, ToIntFunction<String> partitionOf, int partitions) {
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be at least 1, was " + partitions);
        }
        return new BoardStore(pump, partitionOf, partitions);
    }

    /** Whether ids and limits are decided at apply (a cluster replica's store). */
    public boolean decidesAtApply() {
        return partitionOf != null;
    }

    /** Cluster mode: most boards created through one partition. */
    public int boardsPerPartitionLimit() {
        int n = Math.max(1, boardsPerPartition.length);
        return (MAX_BOARDS + n - 1) / n;
    }

    /** The pump that owns this store. */
    public MessagePump pump() {
        return pump;
    }

    // ---- reads ----

    public List<BoardSummary> list() {
        pump.checkAccess();
        List<BoardSummary> out = new ArrayList<>(boards.size());
        for (Board b : boards.values()) {
            out.add(b.summary());
        }
        return out;
    }

    public BoardSnapshot snapshot(String boardId) {
        pump.checkAccess();
        return board(boardId).snapshot();
    }

    /** One note. */
    public Note note(String boardId, String noteId) {
        pump.checkAccess();
        Note n = board(boardId).notes.get(noteId);
        if (n == null) {
            throw BoardException.noNote(boardId, noteId);
        }
        return n;
    }

    /** The board's current revision. */
    public long revision(String boardId) {
        pump.checkAccess();
        return board(boardId).revision;
    }

    // ---- prepare (no change) ----

    public Change.CreateBoard prepareCreateBoard(String name) {
        pump.checkAccess();
        checkOpen();
        if (boards.size() >= MAX_BOARDS) {
            throw tooManyBoards();
        }
        if (decidesAtApply()) {
            // 19 random digits (about 63 bits): the id syntax of the API (b and 1..19 digits).
            return new Change.CreateBoard("b" + ThreadLocalRandom.current().nextLong(1_000_000_000_000_000_000L,
                    Long.MAX_VALUE), name);
        }
        return new Change.CreateBoard("b" + nextBoard++, name);
    }

    public Change.AddNote prepareAddNote(String boardId, String text) {
        pump.checkAccess();
        checkOpen();
        Board b = board(boardId);
        if (b.notes.size() >= MAX_NOTES_PER_BOARD) {
            throw full(b);
        }
        return new Change.AddNote(boardId, decidesAtApply() ? Change.AddNote.ID_AT_APPLY : "n" + nextNote++, text);
    }

    public Change.EditNote prepareEditNote(String boardId, String noteId, String text, long expectedVersion) {
        pump.checkAccess();
        checkOpen();
        checkVersion(board(boardId), noteId, expectedVersion);
        return new Change.EditNote(boardId, noteId, text, expectedVersion);
    }

    public Change.DeleteNote prepareDeleteNote(String boardId, String noteId, long expectedVersion) {
        pump.checkAccess();
        checkOpen();
        checkVersion(board(boardId), noteId, expectedVersion);
        return new Change.DeleteNote(boardId, noteId, expectedVersion);
    }

    // ---- room for changes under way (the store of one process) ----

    /**
     * Holds room for a prepared change while it is made durable, so that the limits hold for
     * changes under way together: a board or note is counted against its limit from here until
     * {@link #release} (after its apply, or when it was never written). Without it, every change
     * prepared while the others were still being written saw the same room, and all of them were
     * applied. Called once per prepared change, right after its prepare on the pump, before it is
     * appended; a cluster replica's store checks its limits at apply instead and holds nothing.
     *
     * @throws BoardException (409) if the change would take the board or the service past its limit
     *         counting the changes under way; nothing is held then
     */
    public void reserve(Change change) {
        pump.checkAccess();
        if (decidesAtApply()) {
            return;
        }
        switch (change) {
            case Change.CreateBoard c -> {
                if (boards.size() + boardsUnderWay >= MAX_BOARDS) {
                    throw tooManyBoards();
                }
                boardsUnderWay++;
            }
            case Change.AddNote c -> {
                Board b = board(c.boardId());
                if (b.notes.size() + b.notesUnderWay >= MAX_NOTES_PER_BOARD) {
                    throw full(b);
                }
                b.notesUnderWay++;
            }
            default -> {
                // edits and deletes take no room
            }
        }
    }

    /** Gives back the room {@link #reserve} held for {@code change}: it was applied, or never written. */
    public void release(Change change) {
        pump.checkAccess();
        if (decidesAtApply()) {
            return;
        }
        switch (change) {
            case Change.CreateBoard c -> boardsUnderWay--;
            case Change.AddNote c -> {
                Board b = boards.get(c.boardId());
                if (b != null) {
                    b.notesUnderWay--;
                }
            }
            default -> {
                // nothing held
            }
        }
    }

    private static BoardException tooManyBoards() {
        return new BoardException(BoardException.Kind.CONFLICT, "the service holds the most boards allowed ("
                + MAX_BOARDS + ")");
    }

    private static BoardException full(Board b) {
        return new BoardException(BoardException.Kind.CONFLICT,
                "board '" + b.id + "' is full: it has the most notes allowed (" + MAX_NOTES_PER_BOARD + ")");
    }

    // ---- apply ----

    /** The partition of a change that comes from no partitioned log (the journal's), or whose partition is not checked. */
    public static final int ANY_PARTITION = -1;

    /**
     * Carries out a durable change and tells subscribers and waiters.
     *
     * @throws BoardException if the change is no longer valid; nothing was changed then
     */
    public Applied apply(Change change) {
        return apply(change, ANY_PARTITION);
    }

    /**
     * {@link #apply(Change)} for a change read from {@code partition} of a cluster's topic: a
     * cluster replica's store refuses it (as {@code INVALID}) unless that is its board's partition.
     * A board's commands are ordered only within their partition, and partitions interleave
     * differently on each replica: a command from another partition would be applied in a
     * different place of the board's history on each.
     */
    public Applied apply(Change change, int partition) {
        pump.checkAccess();
        Applied applied;
        try {
            applied = applyQuietly(change, partition);
        } catch (BoardException e) {
            changesRejected++;
            throw e;
        }
        changesApplied++;
        Board b = boards.get(change.boardId());
        if (applied.event() != null) {
            b.publish(applied.event());
        }
        publishList(b.summary());
        return applied;
    }

    /** Applies a change read back from the journal at start-up; a change that was rejected live is skipped. */
    public boolean replay(Change change) {
        return replay(change, ANY_PARTITION);
    }

    /** {@link #replay(Change)} of a change read from {@code partition} (see {@link #apply(Change, int)}). */
    public boolean replay(Change change, int partition) {
        pump.checkAccess();
        try {
            applyQuietly(change, partition);
            return true;
        } catch (BoardException e) {
            return false;
        }
    }

    private Applied applyQuietly(Change change, int fromPartition) {
        if (decidesAtApply()) { // the shared topic may hold records of another producer
            String problem = ChangeRules.problem(change, true);
            if (problem == null && fromPartition != ANY_PARTITION) {
                int own = Math.floorMod(partitionOf.applyAsInt(change.boardId()), boardsPerPartition.length);
                if (own != fromPartition) {
                    problem = "board '" + change.boardId() + "' has its commands on partition " + own
                            + ", this one is on partition " + fromPartition;
                }
            }
            if (problem != null) {
                throw new BoardException(BoardException.Kind.INVALID, "not a change this service makes: " + problem);
            }
        }
        Applied applied = switch (change) {
            case Change.CreateBoard c -> {
                if (boards.containsKey(c.boardId())) {
                    throw new BoardException(BoardException.Kind.CONFLICT, "board '" + c.boardId() + "' exists");
                }
                int partition = -1;
                if (decidesAtApply()) {
                    partition = Math.floorMod(partitionOf.applyAsInt(c.boardId()), boardsPerPartition.length);
                    if (boardsPerPartition[partition] >= boardsPerPartitionLimit()) {
                        throw tooManyBoards();
                    }
                }
                Board b = new Board(c.boardId(), c.name());
                boards.put(b.id, b);
                if (partition >= 0) {
                    boardsPerPartition[partition]++;
                }
                yield new Applied(b.snapshot(), null);
            }
            case Change.AddNote c -> {
                Board b = board(c.boardId());
                String id = c.noteId();
                if (id.equals(Change.AddNote.ID_AT_APPLY)) {
                    if (!decidesAtApply()) {
                        throw new IllegalArgumentException("a note id decided at apply needs a cluster replica's store");
                    }
                    if (b.notes.size() >= MAX_NOTES_PER_BOARD) {
                        throw full(b);
                    }
                    id = "n" + (b.notesAdded + 1);
                }
                b.notesAdded++;
                Note n = new Note(id, b.id, c.text(), 1);
                b.notes.put(n.id(), n);
                yield b.changed(BoardEvent.NOTE_ADDED, n);
            }
            case Change.EditNote c -> {
                Board b = board(c.boardId());
                Note old = checkVersion(b, c.noteId(), c.expectedVersion());
                Note n = new Note(old.id(), b.id, c.text(), old.version() + 1);
                b.notes.put(n.id(), n);
                yield b.changed(BoardEvent.NOTE_EDITED, n);
            }
            case Change.DeleteNote c -> {
                Board b = board(c.boardId());
                Note old = checkVersion(b, c.noteId(), c.expectedVersion());
                b.notes.remove(old.id());
                yield b.changed(BoardEvent.NOTE_DELETED, old);
            }
        };
        bumpIds(change);
        return applied;
    }

    /** Keeps the id counters ahead of every id seen (replay sets them from the journal). */
    private void bumpIds(Change change) {
        if (decidesAtApply()) {
            return; // no process-wide counters: board ids are random, note ids per board
        }
        nextBoard = Math.max(nextBoard, idNumber(change.boardId()) + 1);
        if (change instanceof Change.AddNote a) {
            nextNote = Math.max(nextNote, idNumber(a.noteId()) + 1);
        }
    }

    private static long idNumber(String id) {
        try {
            return Long.parseLong(id, 1, id.length(), 10);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    // ---- snapshots (cluster mode) ----

    /** Every board as it is now, in this store's order (for a snapshot). */
    public List<BoardState> exportBoards() {
        pump.checkAccess();
        List<BoardState> out = new ArrayList<>(boards.size());
        for (Board b : boards.values()) {
            out.add(new BoardState(b.id, b.name, b.revision, b.notesAdded, new ArrayList<>(b.notes.values())));
        }
        return out;
    }

    /**
     * Loads boards from a snapshot into an empty store (before the log's tail is replayed on top).
     *
     * @throws IllegalStateException if the store holds boards already
     */
    public void importBoards(List<BoardState> states) {
        pump.checkAccess();
        if (!boards.isEmpty()) {
            throw new IllegalStateException("a snapshot is loaded into an empty store only");
        }
        for (BoardState s : states) {
            Board b = new Board(s.id(), s.name());
            b.revision = s.revision();
            b.notesAdded = s.notesAdded();
            for (Note n : s.notes()) {
                b.notes.put(n.id(), n);
            }
            boards.put(b.id, b);
            if (decidesAtApply()) {
                boardsPerPartition[Math.floorMod(partitionOf.applyAsInt(b.id), boardsPerPartition.length)]++;
            } else {
                nextBoard = Math.max(nextBoard, idNumber(b.id) + 1);
                for (Note n : s.notes()) {
                    nextNote = Math.max(nextNote, idNumber(n.id()) + 1);
                }
            }
        }
    }

    // ---- subscribers and waiters ----

    /**
     * Registers a listener for one board and returns the snapshot it starts from; every later
     * change reaches the listener, none is missed or repeated, since both happen on the pump.
     */
    public BoardSnapshot subscribe(String boardId, BoardListener listener) {
        pump.checkAccess();
        checkOpen();
        Board b = board(boardId);
        b.listeners.add(listener);
        return b.snapshot();
    }

    /**
     * Registers a listener for the board list and returns the list it starts from; every later
     * change of a board's line reaches the listener, none is missed, since both happen on the pump.
     */
    public List<BoardSummary> subscribeList(BoardListListener listener) {
        pump.checkAccess();
        checkOpen();
        listListeners.add(listener);
        return list();
    }

    /** Removes a list listener; no effect when it is gone already. */
    public void unsubscribeList(BoardListListener listener) {
        pump.checkAccess();
        listListeners.remove(listener);
    }

    private void publishList(BoardSummary board) {
        for (Iterator<BoardListListener> it = listListeners.iterator(); it.hasNext(); ) {
            BoardListListener l = it.next();
            if (!l.onBoard(board)) {
                it.remove();
                l.onClose();
            }
        }
    }

    /** Removes a listener; no effect when it is gone already. */
    public void unsubscribe(String boardId, BoardListener listener) {
        pump.checkAccess();
        Board b = boards.get(boardId);
        if (b != null) {
            b.listeners.remove(listener);
        }
    }

    /**
     * A snapshot as soon as the board's revision is above {@code afterRevision}: at once when it is
     * already, otherwise at the next change (the revision is then {@code afterRevision + 1}), or the
     * board as it is when {@code timeout} passes first. Cancelling the returned promise (the client
     * left) unregisters it at once.
     *
     * <p>A revision the board has not reached is refused rather than waited for: no client can
     * have seen it, so the client's copy is not this board's past (a bug, or a board rebuilt from a
     * journal that lost changes), and waiting would end in a snapshot that silently disagrees with
     * what the client holds. The client should fetch the board and poll from its revision.
     *
     * @throws BoardException {@code NOT_FOUND} for an unknown board; {@code CONFLICT} if
     *                        {@code afterRevision} is above the board's revision; {@code UNAVAILABLE}
     *                        once the store is closed
     */
    public Promise<BoardSnapshot> awaitRevision(String boardId, long afterRevision, Duration timeout) {
        pump.checkAccess();
        checkOpen();
        Board b = board(boardId);
        if (afterRevision > b.revision) {
            throw new BoardException(BoardException.Kind.CONFLICT, "board '" + boardId + "' is at revision "
                    + b.revision + "; 'after' (" + afterRevision + ") is ahead of it, so it cannot come from this board: "
                    + "fetch the board and poll from its revision");
        }
        Promise<BoardSnapshot> p = new Promise<>();
        if (b.revision > afterRevision) {
            p.complete(b.snapshot());
            return p;
        }
        b.waiters.add(p);
        PumpTimer timer = pump.schedule(() -> {
            if (b.waiters.remove(p)) {
                p.complete(b.snapshot());
            }
        }, timeout);
        p.onComplete(o -> {
            timer.cancel();
            try {
                pump.execute(() -> b.waiters.remove(p));
            } catch (RejectedExecutionException terminated) {
                // the pump has terminated: its boards and their waiters are gone
            }
        });
        return p;
    }

    /** Listeners (of a board or of the list) and waiters registered, all boards (for metrics and tests). */
    public int[] subscriberAndWaiterCounts() {
        pump.checkAccess();
        int s = listListeners.size();
        int w = 0;
        for (Board b : boards.values()) {
            s += b.listeners.size();
            w += b.waiters.size();
        }
        return new int[] {s, w};
    }

    /** Changes applied and rejected at apply time since start (replay not counted). */
    public long[] changeCounts() {
        pump.checkAccess();
        return new long[] {changesApplied, changesRejected};
    }

    /**
     * Stops taking subscriptions and changes and ends every stream and long poll (they would
     * otherwise hold graceful shutdown open): listeners get {@link BoardListener#onClose()},
     * waiters the current snapshot.
     */
    public void close() {
        pump.checkAccess();
        closed = true;
        List<BoardListListener> lls = new ArrayList<>(listListeners);
        listListeners.clear();
        for (BoardListListener l : lls) {
            l.onClose();
        }
        for (Board b : boards.values()) {
            List<BoardListener> ls = new ArrayList<>(b.listeners);
            b.listeners.clear();
            for (BoardListener l : ls) {
                l.onClose();
            }
            b.releaseWaiters();
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new BoardException(BoardException.Kind.UNAVAILABLE, "the service is shutting down");
        }
    }

    private Board board(String boardId) {
        Board b = boards.get(boardId);
        if (b == null) {
            throw BoardException.noBoard(boardId);
        }
        return b;
    }

    private static Note checkVersion(Board b, String noteId, long expectedVersion) {
        Note n = b.notes.get(noteId);
        if (n == null) {
            throw BoardException.noNote(b.id, noteId);
        }
        if (expectedVersion != Change.ANY_VERSION && n.version() != expectedVersion) {
            throw new BoardException(BoardException.Kind.CONFLICT, "note '" + noteId + "' is at version "
                    + n.version() + ", not " + expectedVersion);
        }
        return n;
    }

    /** One board; touched only on the pump. */
    private static final class Board {
        final String id;
        final String name;
        final Map<String, Note> notes = new LinkedHashMap<>();
        final List<BoardListener> listeners = new ArrayList<>();
        final List<Promise<BoardSnapshot>> waiters = new ArrayList<>();
        long revision;
        /** Notes ever added (a cluster replica's note ids come from it). */
        long notesAdded;
        /** The store of one process: notes held by {@link #reserve} and not yet released. */
        int notesUnderWay;

        Board(String id, String name) {
            this.id = id;
            this.name = name;
        }

        BoardSnapshot snapshot() {
            return new BoardSnapshot(id, name, revision, new ArrayList<>(notes.values()));
        }

        BoardSummary summary() {
            return new BoardSummary(id, name, notes.size(), revision);
        }

        Applied changed(String type, Note note) {
            revision++;
            return new Applied(null, new BoardEvent(revision, type, id, note));
        }

        void publish(BoardEvent e) {
            for (Iterator<BoardListener> it = listeners.iterator(); it.hasNext(); ) {
                BoardListener l = it.next();
                if (!l.onEvent(e)) {
                    it.remove();
                    l.onClose();
                }
            }
            releaseWaiters();
        }

        void releaseWaiters() {
            if (waiters.isEmpty()) {
                return;
            }
            BoardSnapshot s = snapshot();
            List<Promise<BoardSnapshot>> ws = new ArrayList<>(waiters);
            waiters.clear();
            for (Promise<BoardSnapshot> w : ws) {
                w.complete(s);
            }
        }
    }
}
