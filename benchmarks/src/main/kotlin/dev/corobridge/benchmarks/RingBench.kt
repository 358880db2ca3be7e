package dev.corobridge.benchmarks

import dev.corobridge.ring.Ring
import dev.corobridge.ring.RingFile
import dev.corobridge.ring.open
import kotlinx.coroutines.runBlocking
import java.nio.file.OpenOption
import java.nio.file.Path

/** Small Kotlin helpers for the ring benchmarks. */
object RingBench {
    /** Opens [path] on [ring] (the file stays bound to that ring). */
    @JvmStatic
    fun open(ring: Ring, path: Path, vararg options: OpenOption): RingFile = runBlocking { ring.open(path, *options) }
}
