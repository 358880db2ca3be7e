package dev.corobridge.examples

import dev.corobridge.bridge.Task
import dev.corobridge.bridge.await
import dev.corobridge.bridge.task
import dev.corobridge.pump.Affine
import dev.corobridge.pump.MainPump
import dev.corobridge.pump.MessagePump
import dev.corobridge.ring.RingPool
import dev.corobridge.ring.append
import dev.corobridge.ring.fdatasync
import dev.corobridge.ring.open
import kotlinx.coroutines.withContext
import java.nio.ByteBuffer
import java.nio.file.Path
import java.nio.file.StandardOpenOption.APPEND
import java.nio.file.StandardOpenOption.CREATE

/**
 * The README's Kotlin example, compiled: the same flow as suspend functions. The region between the
 * snippet markers is the README's code block ([ReadmeSnippetsTest] checks it).
 */
class JournalKotlin(private val ui: MessagePump, private val io: RingPool, private val board: Affine<MutableList<String>>) {

    // snippet-begin: readme-kotlin
    suspend fun saveNote(path: Path, note: String): Int {
        val journal = io.open(path, CREATE, APPEND)                 // suspends; resumes on our dispatcher
        journal.append(ByteBuffer.wrap("$note\n".toByteArray()))
        journal.fdatasync()
        journal.closeAsync().await()                                 // close() would block the thread
        return withContext(ui.dispatcher) {                          // hop to the pump
            board.get().add(note)
            board.get().size
        }
    }

    /** Java callers get a Task; cancelling it cancels the coroutine. */
    fun saveNoteTask(path: Path, note: String): Task<Int> = ui.scope.task { saveNote(path, note) }

    suspend fun fromJava(javaTask: Task<Int>): Int {
        MainPump.install(ui)             // opt in: Dispatchers.Main backed by the pump (needs corobridge-main)
        return javaTask.await()          // Task<T> / Awaitable<T> suspend, resume on our dispatcher
    }
    // snippet-end: readme-kotlin
}
