package dev.corobridge.pump;

/**
 * Whether the idle pump spins before it parks: the decision of {@link PumpLoop#idle()}, kept apart
 * from the loop so that its rules can be checked one by one.
 *
 * <p><b>Algorithm.</b> Spinning pays when the next post comes within the spin budget and nobody
 * else needs the core meanwhile. Two signals decide:
 * <ul>
 *   <li><i>Score.</i> A spin that found work raises a score by {@value #HIT} (at most
 *       {@value #SCORE_MAX}); a spin that did not halves it. At zero the pump spins only every
 *       {@value #SPIN_PROBE_EVERY}th idle, to notice when traffic gets dense again: rare traffic
 *       or a busy machine turns spinning off.</li>
 *   <li><i>Crowding.</i> A park that gathers {@value #CROWDED} items or more (the busy period
 *       after it, up to the next idle) means many producers in flight: the wake-up that ends a park
 *       is shared by many dispatches anyway, while a spin takes a core from the producers it waits
 *       for (on a machine with few cores it then keeps "finding" work that would have come sooner
 *       without it). A crowded pump parks at once until {@value #QUIET_PARKS} parks in a row each
 *       gathered fewer items. A spinning pump answers each post at once, so its busy periods stay
 *       short however many producers there are: it parks instead of spinning, a probe of what a park
 *       gathers, right after a busy period of {@value #CROWDED} items or more, and every
 *       {@value #PARK_PROBE_EVERY}th idle that ends one of {@value #PROBE_FROM} or more. One or two
 *       producers in ping-pong with the pump never make such periods, so they never pay a probe.</li>
 * </ul>
 * {@code -Dcorobridge.pump.spinWhenCrowded=true} turns crowding and its probes off (for
 * comparisons in the benchmarks).
 *
 * <p><b>Thread-safety.</b> Not thread-safe: confined to the pump thread, like the loop.
 */
final class IdleSpin {

    static final int SCORE_MAX = 16;
    static final int HIT = 2;
    static final int SPIN_PROBE_EVERY = 16;
    static final int CROWDED = 32;
    static final int QUIET_PARKS = 4;
    static final int PARK_PROBE_EVERY = 64;
    static final int PROBE_FROM = 4;
    private static final boolean SPINS_WHEN_CROWDED = Boolean.getBoolean("corobridge.pump.spinWhenCrowded");

    private final boolean spins;
    private final boolean watchesCrowding;
    private int score = SCORE_MAX;
    private int idleCount;
    /** Items run since the pump last went idle, counted up to {@link #CROWDED}. */
    private int ranSinceIdle;
    /** Whether the busy period under way began with a wake from a park (not with a spin hit). */
    private boolean afterPark;
    private boolean crowded;
    /** Busy periods after a park, in a row, that were not crowded. */
    private int quietParks;
    private int idlesSinceParkProbe;

    /** @param spins whether the pump may spin at all (a spin budget above zero) */
    IdleSpin(boolean spins) {
        this(spins, !SPINS_WHEN_CROWDED);
    }

    IdleSpin(boolean spins, boolean watchesCrowding) {
        this.spins = spins;
        this.watchesCrowding = spins && watchesCrowding;
    }

    /** The loop ran {@code n} items (of any source) in one iteration. */
    void ran(int n) {
        if (ranSinceIdle < CROWDED) {
            ranSinceIdle += n;
        }
    }

    /**
     * The loop ran out of work: learns from the busy period that just ended and returns whether to
     * spin before parking. Follow it with {@link #spinHit()} or {@link #spinMissed()} after a spin,
     * and with {@link #parked(boolean)} when the loop went to sleep.
     */
    boolean wentIdle() {
        int ran = ranSinceIdle;
        ranSinceIdle = 0;
        boolean woke = afterPark;
        afterPark = false;
        if (!spins) {
            return false;
        }
        if (watchesCrowding) {
            if (woke && ran >= CROWDED) {
                crowded = true; // a park gathered a crowd
                quietParks = 0;
            } else if (woke && crowded && ++quietParks >= QUIET_PARKS) {
                crowded = false; // a park gathers few posts now: the wake-up is no longer shared
            }
            if (crowded) {
                return false;
            }
            if (ran >= CROWDED || ran >= PROBE_FROM && ++idlesSinceParkProbe >= PARK_PROBE_EVERY) {
                idlesSinceParkProbe = 0;
                return false; // a park probe: at once after a long busy period, else now and then
            }
        }
        return score > 0 || ++idleCount % SPIN_PROBE_EVERY == 0;
    }

    /** The spin found work. */
    void spinHit() {
        score = Math.min(SCORE_MAX, score + HIT);
    }

    /**
     * The spin found nothing: it burned a core for nothing or, on a busy machine, kept the producer
     * it waits for off the CPU. A short park after it is no reason to raise the score again: on a
     * busy machine the park is short precisely because it let the producer run.
     */
    void spinMissed() {
        score >>= 1;
    }

    /** The loop armed its gate; {@code parked}: it really slept (no work found at the re-check). */
    void parked(boolean parked) {
        afterPark = parked;
    }

    /** Whether the pump is crowded now (for tests). */
    boolean isCrowded() {
        return crowded;
    }
}
