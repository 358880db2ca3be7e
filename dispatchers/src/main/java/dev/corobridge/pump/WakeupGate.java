package dev.corobridge.pump;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The sleep/wake handshake between one consumer thread (the pump) and any number of producers.
 *
 * <p><b>Protocol.</b> The consumer {@link #arm() arms} the gate, re-checks every work source, and
 * only then {@link #park(long) parks}; if the re-check finds work it {@link #disarm() disarms}
 * instead. A producer first publishes its work (a volatile write into a queue) and then calls
 * {@link #wake()}, which unparks the consumer only if it sees the gate armed <i>and</i> wins the
 * compare-and-set that disarms it.
 *
 * <ul>
 *   <li><b>No lost wake-up.</b> The consumer's "arm, then read the sources" and the producer's
 *       "write a source, then read the gate" are volatile accesses, so (Dekker) at least one side
 *       sees the other: either the consumer's re-check finds the work, or the producer sees the gate
 *       armed and unparks. An unpark that arrives before the park leaves a permit, so the park
 *       returns at once.</li>
 *   <li><b>At most one wake-up per sleep.</b> Only the producer whose compare-and-set flips the gate
 *       from armed to disarmed unparks; every other producer that arrives while the consumer is
 *       asleep or waking sees it disarmed and does nothing. Under load the consumer rarely arms at
 *       all, so many posts share one wake-up.</li>
 * </ul>
 *
 * <p><b>Interrupts.</b> An interrupt makes {@code LockSupport.park} return at once, and keeps
 * making it return at once for as long as the thread's interrupt status stays set: an owner that
 * loops "arm, re-check, park" would spin at full speed. {@link #park(long)} therefore clears the
 * status when it returns and tells the caller, which decides how to report it.
 *
 * <p><b>Thread-safety.</b> {@link #arm()}, {@link #disarm()} and {@link #park(long)} are for the
 * owner thread only (checked with {@code assert} once an owner is {@link #bind bound});
 * {@link #wake()} and the counters are safe from any thread.
 */
final class WakeupGate {

    private static final int AWAKE = 0;
    private static final int ARMED = 1;

    private final AtomicInteger state = new AtomicInteger(AWAKE);
    private final AtomicLong wakeups = new AtomicLong();
    private final AtomicLong arms = new AtomicLong();
    private volatile Thread owner;

    /** Sets the thread that parks here; before that, {@link #wake()} only disarms. */
    void bind(Thread thread) {
        this.owner = thread;
    }

    /** Owner only: announces "about to sleep". The caller must re-check its sources afterwards. */
    void arm() {
        assert isOwnerOrUnbound() : notOwner("arm()");
        arms.lazySet(arms.get() + 1);
        state.set(ARMED);
    }

    /** Owner only: cancels an {@link #arm()} after the re-check found work, or after waking. */
    void disarm() {
        assert isOwnerOrUnbound() : notOwner("disarm()");
        state.set(AWAKE);
    }

    /** Whether the owner announced that it is about to sleep or is sleeping. */
    boolean isArmed() {
        return state.get() == ARMED;
    }

    /**
     * Owner only: sleeps until {@link #wake()}, an interrupt or a spurious return, or for at most
     * {@code nanos} (negative: no limit). The caller loops and re-checks its sources either way.
     *
     * @return whether the owner's interrupt status was set; it is cleared now, so that the next
     *         park sleeps again
     */
    boolean park(long nanos) {
        assert isOwnerOrUnbound() : notOwner("park()");
        if (nanos < 0) {
            LockSupport.park(this);
        } else if (nanos > 0) {
            LockSupport.parkNanos(this, nanos);
        }
        return Thread.interrupted();
    }

    /**
     * Any thread, after publishing work: wakes the owner if it is armed. Returns whether this call
     * performed the (single) wake-up for the current sleep.
     */
    boolean wake() {
        if (state.get() == ARMED && state.compareAndSet(ARMED, AWAKE)) {
            wakeups.incrementAndGet();
            Thread t = owner;
            if (t != null) {
                LockSupport.unpark(t);
            }
            return true;
        }
        return false;
    }

    private boolean isOwnerOrUnbound() {
        Thread t = owner;
        return t == null || t == Thread.currentThread();
    }

    private String notOwner(String what) {
        return "WakeupGate." + what + " on thread '" + Thread.currentThread().getName()
                + "', but only its owner '" + owner.getName() + "' may arm, disarm and park";
    }

    /** Times the owner armed the gate; every wake-up consumes one arming, so wakeups() <= arms(). */
    long arms() {
        return arms.get();
    }

    /** Wake-ups performed so far (real unparks of a sleeping owner). */
    long wakeups() {
        return wakeups.get();
    }
}
