package dev.corobridge.test

import dev.corobridge.pump.MessagePump

/**
 * One test's claim on `Dispatchers.Main`: while it is open, [pump] backs `Dispatchers.Main` on the
 * thread that opened it and for every coroutine [MainBindings] has seen on Main under it (and
 * their descendants). Opened and closed by [CorobridgeExtension] on the test's thread, through
 * [MainBindings.open] and [close].
 *
 * A closed binding no longer claims its thread, but the coroutines it claimed keep resolving to
 * its pump (terminated by then), whose dispatcher cancels them with a `PumpShutdownException`
 * instead of letting them resume on another test's pump.
 *
 * Thread-safety: [isOpen] is read from any thread (volatile); [close] belongs to the opening thread.
 */
internal class MainBinding internal constructor(
    /** The pump that is `Dispatchers.Main` for this test. */
    val pump: MessagePump,
    /** The binding this one replaced on its thread (an enclosing test's, e.g. a test that runs tests), or null. */
    internal val previous: MainBinding?,
) {
    @Volatile
    var isOpen: Boolean = true
        private set

    /** Gives up the claim: restores the previous binding of the opening thread. Idempotent. */
    fun close() {
        if (isOpen) {
            isOpen = false
            MainBindings.release(this)
        }
    }

    override fun toString(): String = "MainBinding[${pump.name}, ${if (isOpen) "open" else "closed"}]"
}
