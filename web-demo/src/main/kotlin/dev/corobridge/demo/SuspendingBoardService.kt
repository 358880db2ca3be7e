@file:JvmName("SuspendingBoardService")

package dev.corobridge.demo

import dev.corobridge.bridge.HopTrace
import dev.corobridge.bridge.Task
import dev.corobridge.bridge.await
import dev.corobridge.demo.board.BoardSnapshot
import dev.corobridge.demo.board.BoardSummary
import dev.corobridge.demo.board.Note
import dev.corobridge.demo.board.WordStats
import kotlinx.coroutines.CancellationException

// The Kotlin face of BoardService: each operation as a suspend function that awaits the boundary's
// Task (Java: the ...Async member). Nothing of the flows is here; they live in BoardService, so
// both faces make the same steps and the same Hop-Trace.

/** [BoardService.createBoardAsync]: a new board. */
suspend fun BoardService.createBoard(name: String, trace: HopTrace?): BoardSnapshot =
    createBoardAsync(name, trace).answer()

/** [BoardService.listAsync]: the board list. */
suspend fun BoardService.list(trace: HopTrace?): List<BoardSummary> = listAsync(trace).answer()

/** [BoardService.boardAsync]: a board with its notes. */
suspend fun BoardService.board(boardId: String, trace: HopTrace?): BoardSnapshot = boardAsync(boardId, trace).answer()

/** [BoardService.addNoteAsync]: a new note. */
suspend fun BoardService.addNote(boardId: String, text: String, trace: HopTrace?): Note =
    addNoteAsync(boardId, text, trace).answer()

/** [BoardService.noteAsync]: one note. */
suspend fun BoardService.note(boardId: String, noteId: String, trace: HopTrace?): Note =
    noteAsync(boardId, noteId, trace).answer()

/** [BoardService.editNoteAsync]: a note's new text at its expected version. */
suspend fun BoardService.editNote(boardId: String, noteId: String, text: String, expectedVersion: Long, trace: HopTrace?): Note =
    editNoteAsync(boardId, noteId, text, expectedVersion, trace).answer()

/** [BoardService.deleteNoteAsync]: deletes a note at its expected version. */
suspend fun BoardService.deleteNote(boardId: String, noteId: String, expectedVersion: Long, trace: HopTrace?): Note =
    deleteNoteAsync(boardId, noteId, expectedVersion, trace).answer()

/** [BoardService.statsAsync]: word statistics. */
suspend fun BoardService.stats(boardId: String, trace: HopTrace?): WordStats = statsAsync(boardId, trace).answer()

/** [BoardService.awaitChangeAsync]: the long poll. */
suspend fun BoardService.awaitChange(boardId: String, afterRevision: Long, trace: HopTrace?): BoardSnapshot =
    awaitChangeAsync(boardId, afterRevision, trace).answer()

/**
 * The task's value. A cancelled caller (the client went away) cancels the task, as the Java face's
 * `Mono` does when WebFlux disposes it: the boundary then withdraws what the task waits for (a long
 * poll's waiter), where a plain `await()` would only stop waiting.
 */
private suspend fun <T> Task<T>.answer(): T = try {
    await()
} catch (e: CancellationException) {
    cancel()
    throw e
}
