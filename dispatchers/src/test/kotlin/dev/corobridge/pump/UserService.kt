package dev.corobridge.pump

import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.withContext

/** A Kotlin service with suspend functions, as the Kotlin half of a mixed team would write it. */
class UserService(private val ui: MessagePump) {
    /** Loads in the background, then touches pump-owned state on the pump. */
    suspend fun load(id: String, seen: MutableList<String>): String {
        seen += "start@" + Thread.currentThread().name
        val raw = withContext(Dispatchers.IO) {
            seen += "io@" + Thread.currentThread().name
            "user-$id"
        }
        return withContext(ui.dispatcher) {
            ui.checkAccess()
            seen += "apply@" + Thread.currentThread().name
            raw.uppercase()
        }
    }
}
