package dev.corobridge.pump;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import dev.corobridge.bridge.internal.BlockingGuard;
import dev.corobridge.bridge.ExecutionContext;
import dev.corobridge.dispatchers.internal.Deadlines;
import kotlinx.coroutines.CoroutineScope;
import org.jctools.queues.atomic.MpscUnboundedAtomicArrayQueue;

/**
 * A single-threaded, multi-source event loop that owns state the way a UI thread owns its widgets:
 * the <b>UI-affinity thread</b> of corobridge. It is a Java {@link Executor} and, through
 * {@link #getDispatcher()}, a Kotlin {@code CoroutineDispatcher} with {@code Delay}.
 *
 * <h2>Running it</h2>
 * {@link #start(String)} creates a pump with a thread of its own. {@link #create(PumpConfig)} plus
 * {@link #runLoop()} turns the calling thread into the pump until shutdown, for applications whose
 * main thread is the UI thread. {@link ManualPump} is a deterministic pump for tests.
 *
 * <h2>Implementation overview</h2>
 * One loop iteration:
 * <ol>
 *   <li>runs at most {@code batchSize} tasks (Java {@link #execute} and coroutine dispatches share
 *       one FIFO queue, so order per producer is kept);</li>
 *   <li>fires at most {@code batchSize} due timers;</li>
 *   <li>runs at most {@code batchSize} external completions (a second queue, fed internally by
 *       {@code deliver});</li>
 *   <li>if nothing ran: runs the idle hook, spins up to {@code spinBudget} re-checking the queues while
 *       spinning has been paying off (a small score: up on a hit, halved on a miss; a probe every
 *       16th idle otherwise) and the pump is not crowded (a park gathered 32 or more items: many
 *       producers share a wake-up, and a spin would take a core from them), then
 *       arms the {@link WakeupGate}, re-checks every source, and parks until the next timer. A
 *       pump whose traffic stopped parks without a timeout: no CPU.</li>
 * </ol>
 * Batches are bounded so that a task that re-posts itself forever cannot starve timers,
 * completions or other producers. The queues are lock-free multi-producer single-consumer
 * (JCTools' chunked array queue: no node per post; a 4 KiB chunk per 1024 posts). A producer wakes the pump only if it sees
 * the gate armed and wins the one compare-and-set that disarms it: no lost wake-ups, at most one
 * wake-up per sleep, and under load posts share wake-ups ({@link PumpMetrics#wakeupsPerDispatch()}).
 *
 * <p>This class is the façade and the producer side (admission and wake-up: the queues, the
 * {@code PumpAdmission} word and the gate, read on every post from its own final fields). Behind it,
 * one package-private class per concern, the way Netty's {@code SingleThreadEventExecutor} keeps its
 * I/O in an {@code IoHandler}: {@code PumpLoop} (the iteration, idle spin and park; {@code IdleSpin}
 * decides whether to spin), {@code TimerQueue} (timers), {@code NestedLoop} ({@link #pumpUntil}),
 * {@code PumpLifecycle} (the state machine and two-phase shutdown, with its report),
 * {@code PumpLeftovers} (what shutdown settles), {@code PumpTaskRunner} (running and accounting one
 * unit of work) and {@code PumpCounters} ({@link #getMetrics()}). They are made in the constructor
 * and take the shared state (queues, gate, admission and state words, timers, counters) from this
 * class's package-private final fields.
 *
 * <h2>Guarantees</h2>
 * <ul>
 *   <li><b>Never inline.</b> {@link #execute}, {@link #schedule} and coroutine dispatches always enqueue;
 *       work posted from a pump task runs after that task returns, on a clean stack.
 *       ({@code getDispatcher().getImmediate()} is the documented opt-in exception.)</li>
 *   <li><b>Memory effects.</b> Actions in a thread before it posts a task <i>happen-before</i> the
 *       task runs on the pump (the queue's volatile publication).</li>
 *   <li><b>Affinity.</b> {@link #isCurrentThread()}, {@link #checkAccess()} and {@link Affine}.</li>
 *   <li><b>Nothing silently dropped at shutdown</b> (two phases, see {@link #shutdown(Duration)}).</li>
 * </ul>
 *
 * <h2>Failures</h2>
 * <ul>
 *   <li>A task, timer or completion that throws is counted ({@link PumpMetrics#taskFailures()}) and
 *       handed to {@link PumpConfig#uncaughtExceptionHandler()}; the loop goes on. A handler that
 *       throws in turn is logged at {@code ERROR} with both exceptions (neither is changed), and
 *       the loop goes on.</li>
 *   <li><b>Interrupts.</b> A pump does not stop when its thread is interrupted (use
 *       {@link #shutdown()}): an interrupt would only make every later park return at once, so the
 *       idle loop would spin at 100 % CPU. When the loop goes idle and finds its thread
 *       interrupted, it clears the interrupt status, counts it ({@link PumpMetrics#interrupts()}),
 *       logs the first one per pump at {@code WARNING} (later ones at {@code DEBUG}), and sleeps as
 *       usual. Until then, tasks that run see the status, as they would on any thread.</li>
 *   <li>If the loop itself fails (an error escapes the loop's own machinery, not a task), the
 *       pump terminates at once, settling what it can as a forced shutdown does; the error is
 *       rethrown by {@link #runLoop()}, {@link #termination()} completes exceptionally with a
 *       {@link PumpLoopFailedException}, and {@link #awaitTermination} returns {@code false}.</li>
 * </ul>
 *
 * <h2>Thread-safety</h2>
 * Every public method is safe from any thread except those documented "pump thread only"
 * ({@link #pumpUntil}) and the blocking waits, which refuse to run on the pump thread. The loop's
 * own state is confined to the pump thread; its methods {@code assert} that (the tests run with
 * {@code -ea}).
 */
public class MessagePump implements ExecutionContext, AutoCloseable {

    private static final System.Logger LOG = System.getLogger(MessagePump.class.getName());

    /** What the pump posts to itself to make its loop look again; never counted as work. */
    static final Runnable NO_OP = () -> { };

    final String name;
    final PumpConfig config;
    final PumpClock clock;

    // The producer side, read on every post: final fields of this class, as the hot path wants them.
    // Package-private: the rooms behind the façade take theirs from here when they are made.
    final MpscUnboundedAtomicArrayQueue<Runnable> tasks = new MpscUnboundedAtomicArrayQueue<>(1024);
    final MpscUnboundedAtomicArrayQueue<Runnable> completions = new MpscUnboundedAtomicArrayQueue<>(256);
    final WakeupGate gate = new WakeupGate();
    final PumpAdmission admission = new PumpAdmission();
    private final int sampleMask;
    /** The lifecycle state ({@link PumpLifecycle} writes it); read here for the cheap queries. */
    final AtomicInteger state = new AtomicInteger(PumpLifecycle.NEW);
    final TimerQueue timers = new TimerQueue(this::nudge);
    /** {@link #nudge()}s queued and not taken yet. */
    private final AtomicLong queuedNudges = new AtomicLong();
    final PumpCounters counters = new PumpCounters();
    private volatile Thread thread;

    // The rooms behind the façade.
    private final PumpLifecycle lifecycle;
    private final PumpLoop loop;
    private final NestedLoop nested;
    private final PumpDispatcher dispatcher;
    private final CoroutineScope scope;

    MessagePump(PumpConfig config, PumpClock clock) {
        this(config, clock, true);
    }

    /** @param realTime {@code false} for {@link ManualPump}: the loop never waits for real time */
    MessagePump(PumpConfig config, PumpClock clock, boolean realTime) {
        this.config = Objects.requireNonNull(config, "config");
        this.name = config.name();
        this.clock = clock;
        this.sampleMask = config.latencySampleEvery() == 0 ? -1 : config.latencySampleEvery() - 1;
        this.dispatcher = new PumpDispatcher(this, false);
        PumpTaskRunner runner = new PumpTaskRunner(name, clock, counters, config.uncaughtExceptionHandler());
        this.scope = PumpCoroutines.newPumpScope(dispatcher, name, runner::reportFailure);
        this.lifecycle = new PumpLifecycle(this, new PumpLeftovers(this, runner));
        this.loop = new PumpLoop(this, lifecycle, runner, realTime);
        this.nested = new NestedLoop(this, loop);
    }

    // ------------------------------------------------------------------ creation and running

    /** Starts a pump with default settings on a new thread called {@code name}. */
    public static MessagePump start(String name) {
        return start(PumpConfig.defaults(name));
    }

    /** Starts a pump on a new platform thread named after the pump; it is {@code RUNNING} when this returns. */
    public static MessagePump start(PumpConfig config) {
        MessagePump pump = new MessagePump(config, PumpClock.SYSTEM);
        Thread t = Thread.ofPlatform().name(config.name()).daemon(config.daemon()).unstarted(pump::runLoop);
        pump.bindThread(t);
        t.start();
        pump.lifecycle.threadStarted(); // running when start returns, not once the thread got the CPU
        return pump;
    }

    /**
     * Creates a pump without a thread; {@link #runLoop()} turns a thread into it. Work posted
     * before that is queued and runs once the loop starts.
     */
    public static MessagePump create(PumpConfig config) {
        return new MessagePump(config, PumpClock.SYSTEM);
    }

    /** {@link #create(PumpConfig)} with default settings. */
    public static MessagePump create(String name) {
        return create(PumpConfig.defaults(name));
    }

    /**
     * Runs the loop on the calling thread until the pump terminates (see {@link #shutdown()}).
     *
     * @throws IllegalStateException if the loop already runs, has run, or the pump belongs to
     *                               another thread
     */
    public void runLoop() {
        Thread me = Thread.currentThread();
        lifecycle.claimLoop(me);
        try {
            BlockingGuard.forbidBlocking(name); // Task.join() on this thread fails fast, naming the fix
            if (!config.stallThreshold().isZero()) {
                lifecycle.watchedBy(StallWatchdog.watch(this, me, config.stallThreshold()));
            }
            while (true) {
                int n = drive();
                if (n < 0) {
                    return;
                }
                if (n == 0) {
                    idle();
                }
            }
        } catch (Throwable loopFailure) {
            // Not a task's failure (those are reported and the loop goes on): the loop itself broke.
            // Terminate rather than leave posts queued and awaiters hanging, then let it propagate.
            lifecycle.terminateAfterLoopFailure(loopFailure);
            throw loopFailure;
        } finally {
            BlockingGuard.allowBlocking();
        }
    }

    /** For {@link ManualPump}: the creating thread drives the loop itself. */
    final void markRunningWithoutLoop() {
        lifecycle.runWithoutLoop();
    }

    final void bindThread(Thread t) {
        this.thread = t;
        gate.bind(t);
    }

    // ------------------------------------------------------------------ running work

    /**
     * Runs {@code task} on the pump after everything this thread handed to it before (the
     * {@link Executor} contract, so {@code CompletableFuture.*Async(.., pump)} and Reactor's
     * {@code Schedulers.fromExecutor(pump)} run on the pump). Fire and forget: never runs it inline.
     * For work with a result use {@code Task.start(pump, callable)}; for Kotlin,
     * {@link #getDispatcher()}; for a delay, {@link #schedule(Runnable, Duration)}.
     *
     * @throws RejectedExecutionException if the pump has terminated (the task does not run)
     */
    @Override
    public void execute(Runnable task) {
        if (!enqueue(tasks, Objects.requireNonNull(task, "task"), true)) {
            throw new RejectedExecutionException("MessagePump '" + name + "' has terminated and runs no more tasks");
        }
    }

    /**
     * Runs {@code task} on the pump once {@code delay} has passed. Cancel through the returned
     * handle. A task not yet due when the pump terminates does not run; the shutdown report counts
     * it as abandoned.
     *
     * @throws RejectedExecutionException if the pump has terminated
     * @throws IllegalArgumentException   if {@code delay} is negative
     */
    public PumpTimer schedule(Runnable task, Duration delay) {
        Objects.requireNonNull(task, "task");
        Objects.requireNonNull(delay, "delay");
        if (delay.isNegative()) {
            throw new IllegalArgumentException("delay must not be negative, was " + delay);
        }
        PumpTimer t = scheduleTimer(Deadlines.saturatedNanos(delay), task, null);
        if (t == null) {
            throw new RejectedExecutionException("MessagePump '" + name + "' has terminated and runs no more tasks");
        }
        return t;
    }

    /**
     * Internal: delivers an external completion (e.g. an I/O result) to run on the pump. Completions
     * have a queue of their own, served every iteration after tasks and timers, so a flood of
     * {@link #execute} cannot delay them indefinitely and vice versa. A batch of completions delivered
     * while the pump sleeps costs one wake-up. Returns {@code false} if the pump has terminated.
     */
    final boolean deliver(Runnable completion) {
        return enqueue(completions, Objects.requireNonNull(completion, "completion"), true);
    }

    /**
     * Internal: makes the loop look again (a no-op task); {@code false} once terminated. A nudge is
     * not work: it is counted while queued and left out of {@link PumpMetrics#queueDepth()} (a
     * nudge nobody took yet, e.g. on a manual pump nobody drives, is no task left behind).
     */
    final boolean nudge() {
        queuedNudges.incrementAndGet();
        if (!enqueue(tasks, NO_OP, false)) {
            queuedNudges.decrementAndGet();
            return false;
        }
        return true;
    }

    /** Loop thread: a queued {@link #NO_OP} was taken (see {@link #nudge()}). */
    final void nudgeTaken() {
        queuedNudges.decrementAndGet();
    }

    // ------------------------------------------------------------------ Kotlin face

    /**
     * The pump as a Kotlin {@code CoroutineDispatcher} (also a {@code MainCoroutineDispatcher} with
     * an {@code immediate} view) implementing {@code Delay} on the pump's own timers.
     */
    @Override
    public PumpDispatcher getDispatcher() {
        return dispatcher;
    }

    /**
     * A scope whose coroutines run on the pump and are tracked: shutdown cancels them while the
     * loop still runs and waits for them to finish. A {@code SupervisorJob}: one failing child does
     * not cancel its siblings; its failure goes to {@link PumpConfig#uncaughtExceptionHandler()}
     * (unless it has a {@code CoroutineExceptionHandler} of its own), on the thread it failed on.
     */
    public CoroutineScope getScope() {
        return scope;
    }

    // ------------------------------------------------------------------ affinity

    /** The pump's name (also its thread's name when it owns one). */
    @Override
    public String getName() {
        return name;
    }

    /** The pump thread, or {@code null} before the loop has a thread. */
    public Thread getThread() {
        return thread;
    }

    /** Whether the calling thread is the pump thread. */
    public boolean isCurrentThread() {
        return Thread.currentThread() == thread;
    }

    /**
     * Throws {@link PumpAffinityException}, naming both threads and the fix, unless called on the
     * pump thread.
     */
    public void checkAccess() {
        Thread me = Thread.currentThread();
        Thread owner = thread;
        if (me != owner) {
            throw new PumpAffinityException(name, owner, me);
        }
    }

    // ------------------------------------------------------------------ secondary loop

    /**
     * Pump thread only: keeps dispatching (tasks, timers, completions) until {@code done} returns
     * {@code true} or {@code timeout} passes, for pump code that must wait synchronously, like
     * {@code java.awt.SecondaryLoop}. Work posted meanwhile is not lost or reordered per producer.
     * {@code done} is checked after every batch; if it is changed by another thread without posting
     * to the pump, the change is seen within 10 ms. Nesting is bounded by
     * {@link PumpConfig#maxNestingDepth()}. The work it runs is unrelated to the caller, so it does
     * not see the caller's thread-bound context (the MDC, the thread-locals registered with
     * Micrometer's {@code ContextRegistry}, the current observation): that context is taken off the
     * thread while the nested loop runs, and is back when this returns; tasks and coroutines bring
     * their own.
     *
     * @return {@code true} if {@code done} became true, {@code false} on timeout
     * @throws PumpAffinityException if not called on the pump thread
     * @throws IllegalStateException if nested deeper than allowed or the pump has terminated
     */
    public boolean pumpUntil(BooleanSupplier done, Duration timeout) {
        return nested.pumpUntil(done, timeout);
    }

    /**
     * Pump thread only: dispatches until {@code stage} completes, then returns its value.
     *
     * @throws TimeoutException     if {@code timeout} passes first
     * @throws CompletionException  carrying the stage's failure
     * @throws java.util.concurrent.CancellationException if the stage was cancelled
     */
    public <T> T pumpUntil(CompletionStage<T> stage, Duration timeout) throws TimeoutException {
        return nested.pumpUntil(stage, timeout);
    }

    // ------------------------------------------------------------------ shutdown

    /** {@link #shutdown(Duration)} with the configured grace period. */
    public CompletableFuture<ShutdownReport> shutdown() {
        return shutdown(config.shutdownGracePeriod());
    }

    /**
     * Starts a two-phase shutdown and returns a future of its report; does not wait.
     * <ol>
     *   <li>While the loop still runs, every live coroutine of {@link #getScope()} is cancelled with
     *       a {@link PumpShutdownException}, so its {@code finally} blocks run on the pump, including
     *       suspending cleanup in {@code withContext(NonCancellable)}. Posts are still accepted.</li>
     *   <li>The loop keeps running until no tracked coroutine remains and the queues are empty, or
     *       until {@code gracePeriod} passes; then it terminates and reports what it abandoned. A
     *       task running when the period passes is not interrupted, but nothing queued behind it
     *       and no timer that fell due meanwhile runs after the deadline (unless that task
     *       dispatches it itself, in {@link #pumpUntil}): it is abandoned, and the report is not
     *       graceful.</li>
     * </ol>
     * After termination nothing is silently dropped: {@link #execute} and {@link #schedule} throw
     * {@link RejectedExecutionException}, and a coroutine dispatch is turned
     * into cancellation of that coroutine's job with a {@link PumpShutdownException} while its
     * continuation runs on the fallback executor so it can finish. Due-later coroutine timers are
     * handled the same way; {@link #schedule} tasks not yet due are counted as abandoned.
     * Calling again never extends an earlier deadline. A pump whose loop never started terminates
     * at once, reporting what was posted to it as abandoned (gracefully if nothing was). A {@code Task}'s step among the abandoned
     * tasks ({@code Task.start(pump, ...)}, a {@code thenOn(pump, ...)} stage) cancels its task with a
     * {@link PumpShutdownException}, as a rejected start does: nobody waits for it forever.
     */
    public CompletableFuture<ShutdownReport> shutdown(Duration gracePeriod) {
        return lifecycle.shutdown(Objects.requireNonNull(gracePeriod, "gracePeriod"));
    }

    /**
     * Cancels every tracked coroutine and terminates at the next loop iteration without waiting
     * for them; what is left is listed in the report. Like {@code ExecutorService.shutdownNow()},
     * except that a {@code Task} whose step it drops is cancelled with a {@link PumpShutdownException}
     * rather than left pending.
     */
    public CompletableFuture<ShutdownReport> shutdownNow() {
        return lifecycle.shutdownNow();
    }

    /**
     * Blocks until the pump has terminated or {@code timeout} passes.
     *
     * @return {@code true} if the pump terminated through its shutdown (a forced one included:
     *         what it abandoned is in the {@link ShutdownReport}); {@code false} if {@code timeout}
     *         passed first, or if termination <i>failed</i>: the loop died from an error that
     *         escaped it (see {@link PumpLoopFailedException}). The pump is terminated then all the
     *         same ({@link #isTerminated()}), and {@link #termination()} says why.
     * @throws IllegalStateException if called on the pump thread (it would wait for itself)
     */
    public boolean awaitTermination(Duration timeout) throws InterruptedException {
        Objects.requireNonNull(timeout, "timeout");
        if (isCurrentThread()) {
            throw new IllegalStateException("MessagePump '" + name + "': awaitTermination on the pump thread "
                    + "would wait for itself; use shutdown().thenAccept(...) instead");
        }
        if (!isTerminated()) {
            BlockingGuard.checkMayBlock("MessagePump.awaitTermination"); // another pump's thread
        }
        return lifecycle.awaitTermination(timeout);
    }

    /** Whether shutdown has started. */
    public boolean isShutdown() {
        return state.get() >= PumpLifecycle.SHUTTING_DOWN;
    }

    /** Whether the pump has terminated. */
    public boolean isTerminated() {
        return state.get() == PumpLifecycle.TERMINATED;
    }

    /**
     * The report, once terminated; a future of it otherwise. Completes exceptionally with a
     * {@link PumpLoopFailedException} if the loop died instead of shutting down.
     */
    public CompletableFuture<ShutdownReport> termination() {
        return lifecycle.termination();
    }

    /**
     * {@link #shutdown()} and wait for termination (grace period plus 5 s). From the pump thread it
     * only starts the shutdown.
     */
    @Override
    public void close() {
        shutdown();
        if (isCurrentThread() || BlockingGuard.forbiddenContext() != null) {
            return; // a pump's thread never waits (this pump's or another's): the shutdown goes on
        }
        try {
            if (!awaitTermination(config.shutdownGracePeriod().plusSeconds(5)) && !isTerminated()) {
                LOG.log(System.Logger.Level.WARNING, "MessagePump '" + name + "' did not terminate in time");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ------------------------------------------------------------------ metrics

    /** A snapshot of the counters. Cheap; safe from any thread. */
    public PumpMetrics getMetrics() {
        long queued = tasks.size() + (long) completions.size() - queuedNudges.get();
        return counters.snapshot(name, PumpLifecycle.stateName(state.get()), Math.max(0, queued),
                gate.wakeups(), timers.pendingCount(), PumpCoroutines.liveChildren(scope));
    }

    @Override
    public String toString() {
        return "MessagePump[" + name + ", " + PumpLifecycle.stateName(state.get()) + "]";
    }

    // ------------------------------------------------------------------ admission (producer side, hot)

    /**
     * Admission and wake-up, the hot path of every post: enter the admission word (refused once
     * terminated), offer to the queue (a sampled post carries its enqueue time), leave, then wake the
     * pump if it sleeps. The wake-up comes after the offer: see {@link WakeupGate} for why none is lost.
     */
    private boolean enqueue(Queue<Runnable> q, Runnable r, boolean sample) {
        PumpAdmission a = admission;
        if (!a.enter()) {
            return false;
        }
        try {
            if (sample && sampleMask >= 0 && (ThreadLocalRandom.current().nextInt() & sampleMask) == 0) {
                r = new TimedTask(r, clock.nanoTime());
            }
            q.offer(r);
        } finally {
            a.exit();
        }
        gate.wake();
        return true;
    }

    // ------------------------------------------------------------------ internals shared with the dispatcher

    /** Enqueue a coroutine dispatch; {@code false} once terminated (the dispatcher then falls back). */
    final boolean enqueueDispatch(Runnable block) {
        return enqueue(tasks, block, true);
    }

    /**
     * Schedules {@code action} on the pump's timers ({@code onAbandon} runs on the pump if it
     * terminates first; {@code null} counts the timer as abandoned). Returns {@code null} if the pump
     * has terminated.
     */
    final PumpTimer scheduleTimer(long delayNanos, Runnable action, Runnable onAbandon) {
        PumpTimer t = timers.newTimer(clock.nanoTime() + Deadlines.clampNanos(delayNanos), action, onAbandon);
        if (isCurrentThread() && state.get() != PumpLifecycle.TERMINATED) {
            if (timers.isSettled()) {
                // Code that a terminating pump's settlement runs (an abandoned timer's or a dropped
                // task's callback): the timers are settled already, this one would never run.
                timers.discard(t);
                return null;
            }
            timers.add(t);
            return t;
        }
        if (!enqueue(tasks, new TimerInsertion(timers, t), false)) {
            timers.discard(t);
            return null;
        }
        return t;
    }

    final Executor fallbackExecutor() {
        return config.fallbackExecutor();
    }

    // ------------------------------------------------------------------ internals shared with the watchdog

    final long taskSequence() {
        return counters.taskSequence();
    }

    final void reportStall(Thread t, Duration blockedFor, List<StackTraceElement> stack) {
        long n = counters.stallReported();
        try {
            config.stallListener().accept(new StallReport(name, t.getName(), blockedFor, stack, n));
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "MessagePump '" + name + "': stall listener threw", e);
        }
    }

    /**
     * For assertions: whether the caller may touch the loop's state: the pump thread, or any thread
     * while the pump has none (a pump whose loop never started terminates on the caller).
     */
    final boolean isLoopThread() {
        Thread t = thread;
        return t == null || t == Thread.currentThread();
    }

    final String notOnLoopThread(String what) {
        return "MessagePump '" + name + "': " + what + " on thread '" + Thread.currentThread().getName()
                + "'; the loop's state belongs to the pump thread '" + thread.getName() + "'";
    }

    // ------------------------------------------------------------------ the loop (pump thread only)

    /** The consumer side, for {@link ManualPump}, which drives it from the test thread. */
    final PumpLoop loop() {
        return loop;
    }

    /**
     * One iteration plus shutdown processing. Returns the number of items run, or -1 once the pump
     * has terminated.
     */
    final int drive() {
        return loop.drive();
    }

    private void idle() {
        loop.idle();
    }

    static Throwable unwrap(Throwable e) {
        while (e instanceof CompletionException && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }
}
