package dev.corobridge.bridge.internal;

import dev.corobridge.bridge.Awaitable;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * Internal API: not for use outside corobridge; may change without notice.
 *
 * <p>A blocking {@code join()} without a callback: the joining thread is kept in one
 * {@code volatile Thread} field of the awaitable itself (the slot, reached through a
 * {@link VarHandle}), and whoever completes the awaitable unparks it right after publishing the
 * outcome. A {@code join()} through {@link Awaitable#onComplete} allocates a callback node, a
 * lambda and a registration per wait and walks the callback stack twice; a wait for a lock or a
 * hand-over, where most joins park, pays that at every turn.
 *
 * <p><b>Algorithm.</b> The joiner claims the slot by compare-and-set (one joiner per awaitable; a
 * second thread joining at the same time gets {@code false} and waits the usual way), then parks
 * until the outcome is there, and empties the slot however it leaves. The completer publishes the
 * outcome, then reads the slot ({@link #wake}). Both sides write their own field and then read the
 * other's, all volatile, so at least one sees the other: either the joiner finds the outcome
 * before it parks, or the completer finds the joiner and unparks it. A spurious unpark (a joiner
 * that left meanwhile) only makes that thread's next park return early, which every park loop
 * tolerates.
 *
 * <p><b>Thread-safety.</b> Stateless; the slot is the awaitable's. An interrupt ends the wait with
 * {@link InterruptedException} (status cleared, as {@code join()} promises); the awaitable is left
 * as it was.
 */
public final class JoinerSlot {

    private JoinerSlot() {
    }

    /**
     * Parks the current thread until {@code a} is done, kept in {@code a}'s slot. Returns
     * {@code false} at once, without waiting, if another thread holds the slot (the caller then
     * waits through a callback); {@code true} once {@code a} is done.
     *
     * @param slot the {@code volatile Thread} field of {@code a}
     * @throws InterruptedException if the thread is interrupted before {@code a} is done
     */
    public static boolean park(Awaitable<?> a, VarHandle slot) throws InterruptedException {
        if (!slot.compareAndSet(a, (Thread) null, Thread.currentThread())) {
            return false;
        }
        try {
            while (!a.isDone()) {
                if (Thread.interrupted()) {
                    throw new InterruptedException("interrupted while awaiting " + a);
                }
                LockSupport.park(a);
            }
            return true;
        } finally {
            slot.setVolatile(a, (Thread) null);
        }
    }

    /** After {@code a}'s outcome is published: unparks the thread in its slot, if any. */
    public static void wake(Object a, VarHandle slot) {
        Thread joiner = (Thread) slot.getVolatile(a);
        if (joiner != null) {
            LockSupport.unpark(joiner);
        }
    }
}
