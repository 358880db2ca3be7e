package dev.corobridge.pump;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import dev.corobridge.bridge.internal.BlockingGuard;
import dev.corobridge.bridge.ExecutionContext;
import dev.corobridge.bridge.Task;
import java.util.concurrent.Callable;
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
 *   <li>runs at most {@code batchSize} posted tasks (Java {@code post}/{@code execute} and coroutine
 *       dispatches share one FIFO queue, so order per producer is kept);</li>
 *   <li>fires at most {@code batchSize} due timers;</li>
 *   <li>runs at most {@code batchSize} external completions (a second queue, fed by
 *       {@link #deliver(Runnable)} and {@link #completeOnPump(CompletionStage)});</li>
 *   <li>if nothing ran: runs the idle hook, spins up to {@code spinBudget} re-checking the queues while
 *       spinning has been paying off (a small score: up on a hit, halved on a miss; a probe every
 *       16th idle otherwise), then arms the {@link WakeupGate}, re-checks every source, and parks
 *       until the next timer. A pump whose traffic stopped parks without a timeout: no CPU.</li>
 * </ol>
 * Batches are bounded so that a task that re-posts itself forever cannot starve timers,
 * completions or other producers. The queues are lock-free multi-producer single-consumer
 * (JCTools' chunked array queue: no node per post; a 4 KiB chunk per 1024 posts). A producer wakes the pump only if it sees
 * the gate armed and wins the one compare-and-set that disarms it: no lost wake-ups, at most one
 * wake-up per sleep, and under load posts share wake-ups ({@link PumpMetrics#wakeupsPerDispatch()}).
 *
 * <h2>Guarantees</h2>
 * <ul>
 *   <li><b>Never inline.</b> {@link #post}, {@link #execute} and coroutine dispatches always enqueue;
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

    static final int NEW = 0;
    static final int RUNNING = 1;
    static final int SHUTTING_DOWN = 2;
    static final int TERMINATED = 3;
    private static final String[] STATE_NAMES = {"NEW", "RUNNING", "SHUTTING_DOWN", "TERMINATED"};

    /** Admission word: this bit closes the queues; the low bits count producers mid-post. */
    private static final int CLOSED = 1 << 30;
    /** Longest delay honoured; longer delays are clamped (about 146 years). */
    private static final long MAX_DELAY_NANOS = Long.MAX_VALUE / 2;
    /** How often a nested loop re-checks a condition that may be changed off the pump. */
    private static final long NESTED_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final Runnable NO_OP = () -> { };
    private static final int SPIN_SCORE_MAX = 16;
    private static final int SPIN_HIT = 2;
    private static final int SPIN_PROBE_EVERY = 16;
    /** A shutdown time not set yet. */
    private static final long NOT_YET = Long.MAX_VALUE;

    final String name;
    final PumpConfig config;
    final PumpClock clock;

    private final MpscUnboundedAtomicArrayQueue<Runnable> tasks = new MpscUnboundedAtomicArrayQueue<>(1024);
    private final MpscUnboundedAtomicArrayQueue<Runnable> completions = new MpscUnboundedAtomicArrayQueue<>(256);
    private final WakeupGate gate = new WakeupGate();
    private final AtomicInteger admission = new AtomicInteger();
    private final AtomicInteger state = new AtomicInteger(NEW);
    final TimerQueue timers = new TimerQueue();
    private final LatencyHistogram latency = new LatencyHistogram();
    private final CompletableFuture<ShutdownReport> termination = new CompletableFuture<>();
    private final PumpDispatcher dispatcher;
    private final CoroutineScope scope;
    private final int sampleMask;
    private final long maxSpinNanos;

    private volatile Thread thread;
    private final Object lifecycleLock = new Object();
    private boolean loopStarted; // guarded by lifecycleLock
    /**
     * The pump clock when the pump was created: the shutdown times below are kept as offsets from
     * it, which are never negative, so that "the earliest" is a plain {@code min} (absolute
     * {@code nanoTime} values may wrap) and "not yet" is {@link #NOT_YET}.
     */
    private final long originNanos;
    /** Earliest {@code shutdown()} call, as an offset from {@link #originNanos}; only ever lowered. */
    private final AtomicLong shutdownStartOffset = new AtomicLong(NOT_YET);
    /**
     * Earliest deadline any {@code shutdown(Duration)} asked for, as an offset from
     * {@link #originNanos}; only ever lowered, atomically, and written before the state becomes
     * {@code SHUTTING_DOWN}, so the loop always reads a deadline once it sees that state.
     */
    private final AtomicLong shutdownDeadlineOffset = new AtomicLong(NOT_YET);
    private volatile boolean abandonNow;

    // Pump-thread state.
    private boolean phase1Done;
    private int nesting;
    /**
     * How much spinning has paid lately (measured in benchmarks/README.md): +SPIN_HIT per spin that
     * found work, halved per spin that did not. The idle pump spins while it is positive, otherwise
     * only every SPIN_PROBE_EVERY-th time, to notice when traffic gets dense again.
     */
    private int spinScore = SPIN_SCORE_MAX;
    private int idleCount;
    private ScheduledFuture<?> watchdog;
    private boolean interruptLogged;

    // Counters: written by the pump thread with release stores, read by anyone.
    private final AtomicLong taskSeq = new AtomicLong();
    private final AtomicLong dispatches = new AtomicLong();
    private final AtomicLong completionsRun = new AtomicLong();
    private final AtomicLong timersFired = new AtomicLong();
    private final AtomicLong parks = new AtomicLong();
    private final AtomicLong spinHits = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong stalls = new AtomicLong();
    private final AtomicLong interrupts = new AtomicLong();

    MessagePump(PumpConfig config, PumpClock clock) {
        this.config = Objects.requireNonNull(config, "config");
        this.name = config.name();
        this.clock = clock;
        this.originNanos = clock.nanoTime();
        this.sampleMask = config.latencySampleEvery() == 0 ? -1 : config.latencySampleEvery() - 1;
        this.maxSpinNanos = config.spinBudget().toNanos();
        this.dispatcher = new PumpDispatcher(this, false);
        this.scope = PumpCoroutines.newPumpScope(dispatcher, name);
    }

    // ------------------------------------------------------------------ creation and running

    /** Starts a pump with default settings on a new thread called {@code name}. */
    public static MessagePump start(String name) {
        return start(PumpConfig.defaults(name));
    }

    /** Starts a pump on a new platform thread named after the pump. */
    public static MessagePump start(PumpConfig config) {
        MessagePump pump = new MessagePump(config, PumpClock.SYSTEM);
        Thread t = Thread.ofPlatform().name(config.name()).daemon(config.daemon()).unstarted(pump::runLoop);
        pump.bindThread(t);
        t.start();
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
        synchronized (lifecycleLock) {
            Thread owner = thread;
            if (owner != null && owner != me) {
                throw new IllegalStateException("MessagePump '" + name + "' belongs to thread '" + owner.getName()
                        + "'; runLoop() may only be called by it");
            }
            if (loopStarted) {
                throw new IllegalStateException("MessagePump '" + name + "' loop is already running or has run");
            }
            if (state.get() == TERMINATED) {
                throw new IllegalStateException("MessagePump '" + name + "' is terminated; create a new pump");
            }
            loopStarted = true;
            bindThread(me);
            state.compareAndSet(NEW, RUNNING); // or SHUTTING_DOWN already: the loop then shuts down
        }
        try {
            BlockingGuard.forbidBlocking(name); // Task.join() on this thread fails fast, naming the fix
            if (!config.stallThreshold().isZero()) {
                watchdog = StallWatchdog.watch(this, me, config.stallThreshold());
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
            terminateAfterLoopFailure(loopFailure);
            throw loopFailure;
        } finally {
            BlockingGuard.allowBlocking();
        }
    }

    /** For {@link ManualPump}: the creating thread drives the loop itself. */
    final void markRunningWithoutLoop() {
        synchronized (lifecycleLock) {
            loopStarted = true;
            state.set(RUNNING);
        }
    }

    final void bindThread(Thread t) {
        this.thread = t;
        gate.bind(t);
    }

    // ------------------------------------------------------------------ posting

    /**
     * Posts {@code task} to run on the pump after everything posted before it by this thread.
     * Never runs it inline. Returns {@code false}, and does not run it, if the pump has terminated.
     */
    public boolean post(Runnable task) {
        return enqueue(tasks, Objects.requireNonNull(task, "task"), true);
    }

    /**
     * {@link Executor} face of {@link #post}, so {@code CompletableFuture.*Async(.., pump)} and
     * Reactor's {@code Schedulers.fromExecutor(pump)} run on the pump.
     *
     * @throws RejectedExecutionException if the pump has terminated
     */
    @Override
    public void execute(Runnable task) {
        if (!post(task)) {
            throw new RejectedExecutionException("MessagePump '" + name + "' has terminated and runs no more tasks");
        }
    }

    /**
     * Runs {@code task} on the pump after {@code delay}. Cancel through the returned handle.
     *
     * @throws RejectedExecutionException if the pump has terminated
     * @throws IllegalArgumentException   if {@code delay} is negative
     */
    public PumpTimer postDelayed(Runnable task, Duration delay) {
        Objects.requireNonNull(task, "task");
        Objects.requireNonNull(delay, "delay");
        if (delay.isNegative()) {
            throw new IllegalArgumentException("delay must not be negative, was " + delay);
        }
        PumpTimer t = scheduleTimer(saturatedNanos(delay), task, null);
        if (t == null) {
            throw new RejectedExecutionException("MessagePump '" + name + "' has terminated and runs no more tasks");
        }
        return t;
    }

    /**
     * Runs {@code body} on the pump and returns its {@link Task}: from a virtual thread, hops read as
     * {@code ui.call(() -> board.apply(x)).join()}. If the pump has terminated, the task is
     * cancelled with a {@link dev.corobridge.bridge.ContextShutdownException}.
     */
    public <T> Task<T> call(Callable<? extends T> body) {
        return Task.start(this, body);
    }

    /**
     * Delivers an external completion (e.g. an I/O result) to run on the pump. Completions have a
     * queue of their own, served every iteration after posted tasks and timers, so a flood of posts
     * cannot delay them indefinitely and vice versa. A batch of completions delivered while the pump
     * sleeps costs one wake-up. Returns {@code false} if the pump has terminated.
     */
    public boolean deliver(Runnable completion) {
        return enqueue(completions, Objects.requireNonNull(completion, "completion"), true);
    }

    /**
     * A future completed <i>on the pump thread</i> with the outcome of {@code stage}, so its
     * non-async dependents run on the pump. If the pump has terminated when {@code stage}
     * completes, the future fails with {@link PumpShutdownException}. Cancelling the returned
     * future does not cancel {@code stage}.
     */
    public <T> CompletableFuture<T> completeOnPump(CompletionStage<T> stage) {
        Objects.requireNonNull(stage, "stage");
        CompletableFuture<T> out = new CompletableFuture<>();
        stage.whenComplete((value, error) -> {
            boolean delivered = deliver(() -> {
                if (error != null) {
                    out.completeExceptionally(unwrap(error));
                } else {
                    out.complete(value);
                }
            });
            if (!delivered) {
                out.completeExceptionally(new PumpShutdownException(name,
                        "terminated before a completion could be delivered to it"));
            }
        });
        return out;
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
     * not cancel its siblings.
     */
    public CoroutineScope getScope() {
        return scope;
    }

    // ------------------------------------------------------------------ affinity

    /** The pump's name (also its thread's name when it owns one). */
    @Override
    public String name() {
        return name;
    }

    /** The pump thread, or {@code null} before the loop has a thread. */
    public Thread thread() {
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
     * {@link PumpConfig#maxNestingDepth()}.
     *
     * @return {@code true} if {@code done} became true, {@code false} on timeout
     * @throws PumpAffinityException if not called on the pump thread
     * @throws IllegalStateException if nested deeper than allowed or the pump has terminated
     */
    public boolean pumpUntil(BooleanSupplier done, Duration timeout) {
        Objects.requireNonNull(done, "done");
        Objects.requireNonNull(timeout, "timeout");
        checkAccess();
        if (nesting >= config.maxNestingDepth()) {
            throw new IllegalStateException("MessagePump '" + name + "': pumpUntil nested " + (nesting + 1)
                    + " deep, above maxNestingDepth=" + config.maxNestingDepth()
                    + "; wait asynchronously instead (a coroutine on the pump dispatcher, or a callback)");
        }
        if (state.get() == TERMINATED) {
            throw new IllegalStateException("MessagePump '" + name + "' is terminated; pumpUntil cannot dispatch");
        }
        long deadline = clock.nanoTime() + saturatedNanos(timeout);
        nesting++;
        taskSeq.lazySet(taskSeq.get() + 1); // even: dispatching, not stalled
        try {
            while (true) {
                if (done.getAsBoolean()) {
                    return true;
                }
                long now = clock.nanoTime();
                if (now - deadline >= 0) {
                    return false;
                }
                if (runIteration() == 0 && !done.getAsBoolean()) {
                    if (!idleNested(deadline)) {
                        return done.getAsBoolean();
                    }
                }
            }
        } finally {
            nesting--;
            taskSeq.lazySet(taskSeq.get() + 1);
        }
    }

    /**
     * Pump thread only: dispatches until {@code stage} completes, then returns its value.
     *
     * @throws TimeoutException     if {@code timeout} passes first
     * @throws CompletionException  carrying the stage's failure
     * @throws java.util.concurrent.CancellationException if the stage was cancelled
     */
    public <T> T pumpUntil(CompletionStage<T> stage, Duration timeout) throws TimeoutException {
        Objects.requireNonNull(stage, "stage");
        checkAccess();
        CompletableFuture<T> done = new CompletableFuture<>();
        stage.whenComplete((v, e) -> {
            if (e != null) {
                done.completeExceptionally(e);
            } else {
                done.complete(v);
            }
            if (!isCurrentThread()) {
                post(NO_OP); // wake the nested loop now rather than at its next poll
            }
        });
        if (!pumpUntil(done::isDone, timeout)) {
            throw new TimeoutException("MessagePump '" + name + "': stage not complete after " + timeout);
        }
        try {
            return done.get();
        } catch (ExecutionException e) {
            Throwable cause = unwrap(e.getCause());
            if (cause instanceof java.util.concurrent.CancellationException ce) {
                throw ce;
            }
            throw new CompletionException(cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CompletionException(e);
        }
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
     *       until {@code gracePeriod} passes; then it terminates and reports what it abandoned.</li>
     * </ol>
     * After termination nothing is silently dropped: {@link #post} returns {@code false},
     * {@link #execute} throws {@link RejectedExecutionException}, and a coroutine dispatch is turned
     * into cancellation of that coroutine's job with a {@link PumpShutdownException} while its
     * continuation runs on the fallback executor so it can finish. Due-later coroutine timers are
     * handled the same way; {@code postDelayed} tasks not yet due are counted as abandoned.
     * Calling again never extends an earlier deadline. A pump whose loop never started terminates
     * at once, reporting what was posted to it as abandoned.
     */
    public CompletableFuture<ShutdownReport> shutdown(Duration gracePeriod) {
        Objects.requireNonNull(gracePeriod, "gracePeriod");
        if (gracePeriod.isNegative()) {
            throw new IllegalArgumentException("gracePeriod must not be negative, was " + gracePeriod);
        }
        long start = clock.nanoTime() - originNanos;
        long deadline = start + saturatedNanos(gracePeriod);
        // Both only ever go down, atomically, and before the state changes: of concurrent calls the
        // earliest deadline wins, whichever call changes the state (a deadline written first and
        // lowered by check-then-set let a concurrent shutdown(1 h) extend a shutdown(ZERO)).
        shutdownStartOffset.accumulateAndGet(start, Math::min);
        long previous = shutdownDeadlineOffset.getAndAccumulate(deadline, Math::min);
        while (true) {
            int s = state.get();
            if (s == NEW && terminateIfNeverStarted()) {
                break;
            } else if (s == NEW || s == RUNNING) {
                if (state.compareAndSet(s, SHUTTING_DOWN)) {
                    gate.wake();
                    break;
                }
            } else {
                if (s == SHUTTING_DOWN && deadline < previous) {
                    gate.wake(); // the loop may be asleep until the previous, later deadline
                }
                break;
            }
        }
        return termination.copy();
    }

    /** The effective shutdown deadline on the pump clock; {@code Long.MAX_VALUE} before any shutdown. */
    private long shutdownDeadlineNanos() {
        long offset = shutdownDeadlineOffset.get();
        return offset == NOT_YET ? Long.MAX_VALUE : originNanos + offset;
    }

    /** A pump whose loop never started has no thread to shut down on: terminate on the caller. */
    private boolean terminateIfNeverStarted() {
        synchronized (lifecycleLock) {
            // thread != null: start() bound and started a thread that has not entered runLoop()
            // yet. Its loop is coming, so shut down through it (the caller's shutdown() then marks
            // SHUTTING_DOWN and runLoop() proceeds to a graceful shutdown) instead of terminating
            // here, which abandoned what had been posted and made that thread's runLoop() throw.
            if (loopStarted || thread != null || !state.compareAndSet(NEW, SHUTTING_DOWN)) {
                return false;
            }
            terminate(false);
            return true;
        }
    }

    /**
     * Cancels every tracked coroutine and terminates at the next loop iteration without waiting
     * for them; what is left is listed in the report. Like {@code ExecutorService.shutdownNow()}.
     */
    public CompletableFuture<ShutdownReport> shutdownNow() {
        abandonNow = true;
        return shutdown(Duration.ZERO);
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
        if (isCurrentThread()) {
            throw new IllegalStateException("MessagePump '" + name + "': awaitTermination on the pump thread "
                    + "would wait for itself; use shutdown().thenAccept(...) instead");
        }
        try {
            termination.get(saturatedNanos(timeout), TimeUnit.NANOSECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            return false; // the loop failed; termination() carries the PumpLoopFailedException
        }
    }

    /** Whether shutdown has started. */
    public boolean isShutdown() {
        return state.get() >= SHUTTING_DOWN;
    }

    /** Whether the pump has terminated. */
    public boolean isTerminated() {
        return state.get() == TERMINATED;
    }

    /**
     * The report, once terminated; a future of it otherwise. Completes exceptionally with a
     * {@link PumpLoopFailedException} if the loop died instead of shutting down.
     */
    public CompletableFuture<ShutdownReport> termination() {
        return termination.copy();
    }

    /**
     * {@link #shutdown()} and wait for termination (grace period plus 5 s). From the pump thread it
     * only starts the shutdown.
     */
    @Override
    public void close() {
        shutdown();
        if (isCurrentThread()) {
            return;
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
    public PumpMetrics metrics() {
        return new PumpMetrics(name, STATE_NAMES[state.get()], tasks.size() + (long) completions.size(),
                dispatches.get(), completionsRun.get(), timersFired.get(), gate.wakeups(), parks.get(),
                spinHits.get(), latency.max(), latency.percentile(0.99), latency.count(), stalls.get(),
                failures.get(), interrupts.get(), timers.pendingCount(), PumpCoroutines.liveChildren(scope));
    }

    @Override
    public String toString() {
        return "MessagePump[" + name + ", " + STATE_NAMES[state.get()] + "]";
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
        long d = Math.min(Math.max(0, delayNanos), MAX_DELAY_NANOS);
        PumpTimer t = timers.newTimer(clock.nanoTime() + d, action, onAbandon);
        if (isCurrentThread() && state.get() != TERMINATED) {
            timers.add(t);
            return t;
        }
        if (!enqueue(tasks, new TimerInsertion(t), false)) {
            timers.discard(t);
            return null;
        }
        return t;
    }

    final Executor fallbackExecutor() {
        return config.fallbackExecutor();
    }

    /** Gate armings so far (for tests of the one-wake-up-per-sleep rule). */
    final long gateArms() {
        return gate.arms();
    }

    final long taskSequence() {
        return taskSeq.get();
    }

    final void reportStall(Thread t, Duration blockedFor, List<StackTraceElement> stack) {
        long n = stalls.incrementAndGet();
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

    private String notOnLoopThread(String what) {
        return "MessagePump '" + name + "': " + what + " on thread '" + Thread.currentThread().getName()
                + "'; the loop's state belongs to the pump thread '" + thread.getName() + "'";
    }

    /** Whether any source has work right now. Pump thread only. */
    final boolean hasWork() {
        assert isLoopThread() : notOnLoopThread("hasWork()");
        return !tasks.isEmpty() || !completions.isEmpty() || timers.hasDue(clock.nanoTime())
                || (state.get() == SHUTTING_DOWN && !phase1Done);
    }

    /**
     * One iteration plus shutdown processing. Returns the number of items run, or -1 once the pump
     * has terminated. Pump thread only.
     */
    final int drive() {
        assert isLoopThread() : notOnLoopThread("drive()");
        int n = runIteration();
        if (state.get() == SHUTTING_DOWN) {
            if (!phase1Done) {
                phase1Done = true;
                PumpCoroutines.cancelScope(scope, new PumpShutdownException(name,
                        "shutting down; coroutine cancelled so that it can clean up"), () -> post(NO_OP));
                return Math.max(n, 1); // look again before sleeping: cancellation queued work
            }
            boolean quiet = PumpCoroutines.isScopeDone(scope) && tasks.isEmpty() && completions.isEmpty();
            if (quiet || abandonNow || clock.nanoTime() - shutdownDeadlineNanos() >= 0) {
                terminate(quiet && !abandonNow);
                return -1;
            }
        } else if (state.get() == TERMINATED) {
            return -1;
        }
        return n;
    }

    /** Runs at most one batch from each source. Pump thread only. */
    final int runIteration() {
        assert isLoopThread() : notOnLoopThread("runIteration()");
        int n = 0;
        int budget = config.batchSize();
        Runnable r;
        while (budget-- > 0 && !abandonNow && (r = tasks.poll()) != null) {
            runTask(r);
            n++;
        }
        if (timers.nextDue() != Long.MAX_VALUE) {
            long now = clock.nanoTime();
            budget = config.batchSize();
            PumpTimer t;
            while (budget-- > 0 && (t = timers.pollDue(now)) != null) {
                runTimer(t);
                n++;
            }
            timers.purgeIfMostlyCancelled();
        }
        budget = config.batchSize();
        while (budget-- > 0 && !abandonNow && (r = completions.poll()) != null) {
            runTask(r);
            completionsRun.lazySet(completionsRun.get() + 1);
            n++;
        }
        return n;
    }

    /**
     * The loop ran out of work: idle hook, adaptive spin, then arm-recheck-park until the next timer
     * (or the shutdown deadline). Pump thread only.
     */
    private void idle() {
        assert isLoopThread() : notOnLoopThread("idle()");
        Runnable hook = config.idleHook();
        if (hook != null) {
            runTask(hook);
            if (hasWork()) {
                return;
            }
        }
        if (maxSpinNanos > 0 && (spinScore > 0 || ++idleCount % SPIN_PROBE_EVERY == 0)) {
            long start = System.nanoTime();
            do {
                // Posts are what a spinning pump waits for: look at that queue after every pause
                // (two index reads), so a caller that posts and then parks is answered before its
                // park completes; the full check (a clock read for timers) every 32 pauses.
                for (int i = 0; i < 32; i++) {
                    Thread.onSpinWait();
                    if (!tasks.isEmpty()) {
                        break;
                    }
                }
                if (hasWork()) {
                    spinHits.lazySet(spinHits.get() + 1);
                    spinScore = Math.min(SPIN_SCORE_MAX, spinScore + SPIN_HIT);
                    return;
                }
            } while (System.nanoTime() - start < maxSpinNanos);
            // A spin that found nothing burned a core for nothing or, on a busy machine, kept the
            // producer it waits for off the CPU. Spinning stops after a few misses in a row and is
            // only probed every SPIN_PROBE_EVERY-th idle. A short park is no reason to resume: on a
            // busy machine the park is short precisely because it let the producer run.
            spinScore >>= 1;
        }
        sleep(Long.MAX_VALUE);
    }

    /** Nested loop idle: no spin, park at most until {@code deadline} or the next poll. */
    private boolean idleNested(long deadline) {
        long limit = Math.min(deadline, clock.nanoTime() + NESTED_POLL_NANOS);
        sleep(limit);
        return waitsForRealTime();
    }

    /** {@code false} for {@link ManualPump}, whose nested loops must not wait for a clock nobody moves. */
    boolean waitsForRealTime() {
        return true;
    }

    /**
     * Arms the gate, re-checks every source, parks until {@code limit} (absolute, pump clock), the
     * next timer or the shutdown deadline. Returns whether it actually parked.
     */
    private boolean sleep(long limit) {
        gate.arm();
        if (hasWork()) {
            gate.disarm();
            return false;
        }
        // The shutdown deadline is read after arming, like every other source: a shutdown() that
        // lowers it after this read sees the gate armed and wakes us.
        long until = Math.min(Math.min(limit, timers.nextDue()),
                state.get() == SHUTTING_DOWN ? shutdownDeadlineNanos() : Long.MAX_VALUE);
        long timeout = until == Long.MAX_VALUE ? -1 : Math.max(1, until - clock.nanoTime());
        parks.lazySet(parks.get() + 1);
        if (parkFor(timeout)) {
            onInterrupted();
        }
        gate.disarm();
        return true;
    }

    /**
     * Parks the pump thread; {@link ManualPump} never waits for real time. Returns whether the
     * thread's interrupt status was set (it is cleared then).
     */
    boolean parkFor(long timeoutNanos) {
        return gate.park(timeoutNanos);
    }

    /**
     * The pump thread was interrupted (and the status is cleared now, or every later park would
     * return at once and the idle loop would spin). A pump is stopped by shutdown(), not by an
     * interrupt, so the loop goes on; the first interrupt is worth a warning, since it usually
     * means someone expected it to stop something.
     */
    private void onInterrupted() {
        long n = interrupts.get() + 1;
        interrupts.lazySet(n);
        if (!interruptLogged) {
            interruptLogged = true;
            LOG.log(System.Logger.Level.WARNING, "MessagePump '" + name + "': thread '"
                    + Thread.currentThread().getName() + "' was interrupted. A pump is not stopped by an"
                    + " interrupt: the status was cleared and the loop goes on; call shutdown() to stop it."
                    + " Further interrupts are counted in metrics().interrupts() and logged at DEBUG.");
        } else {
            LOG.log(System.Logger.Level.DEBUG, "MessagePump '" + name + "': interrupted again (" + n
                    + " times); status cleared");
        }
    }

    private void runTask(Runnable r) {
        if (r instanceof TimedTask tt) {
            latency.record(clock.nanoTime() - tt.enqueuedAt);
            r = tt.task;
        }
        taskSeq.lazySet(taskSeq.get() + 1);
        try {
            r.run();
        } catch (Throwable e) {
            failures.lazySet(failures.get() + 1);
            reportFailure(e);
        } finally {
            taskSeq.lazySet(taskSeq.get() + 1);
            dispatches.lazySet(dispatches.get() + 1);
        }
    }

    private void runTimer(PumpTimer t) {
        taskSeq.lazySet(taskSeq.get() + 1);
        try {
            t.action.run();
        } catch (Throwable e) {
            failures.lazySet(failures.get() + 1);
            reportFailure(e);
        } finally {
            taskSeq.lazySet(taskSeq.get() + 1);
            timersFired.lazySet(timersFired.get() + 1);
        }
    }

    private void reportFailure(Throwable e) {
        try {
            config.uncaughtExceptionHandler().uncaughtException(Thread.currentThread(), e);
        } catch (Throwable handlerFailure) {
            reportHandlerFailure(e, handlerFailure);
        }
    }

    /**
     * The uncaught-exception handler threw while handling {@code failure}: neither may be lost,
     * and neither is ours to change (both may be shared), so a new exception carries both to the
     * log. A failing handler must not take the loop down, so neither does a failing log.
     */
    private void reportHandlerFailure(Throwable failure, Throwable handlerFailure) {
        try {
            IllegalStateException both = new IllegalStateException("MessagePump '" + name
                    + "': the uncaught-exception handler threw " + handlerFailure + " while handling " + failure
                    + " (the handler's exception is the cause, the original failure is suppressed)",
                    handlerFailure);
            if (failure != handlerFailure) {
                both.addSuppressed(failure);
            }
            LOG.log(System.Logger.Level.ERROR, both.getMessage(), both);
        } catch (Throwable logFailure) {
            try {
                System.err.println("MessagePump '" + name + "': the uncaught-exception handler threw "
                        + handlerFailure + " while handling " + failure + ", and logging that failed: " + logFailure);
            } catch (Throwable ignored) {
                // Nowhere left to report to; the loop goes on.
            }
        }
    }

    private boolean enqueue(Queue<Runnable> q, Runnable r, boolean sample) {
        if ((admission.getAndIncrement() & CLOSED) != 0) {
            admission.getAndDecrement();
            return false;
        }
        try {
            if (sample && sampleMask >= 0 && (ThreadLocalRandom.current().nextInt() & sampleMask) == 0) {
                r = new TimedTask(r, clock.nanoTime());
            }
            q.offer(r);
        } finally {
            admission.getAndDecrement();
        }
        gate.wake();
        return true;
    }

    /** Terminates: settles leftovers and timers, completes the termination with the report. */
    private void terminate(boolean graceful) {
        termination.complete(settle(graceful));
    }

    /**
     * The loop died from {@code loopFailure}: terminate as a forced shutdown would, as far as that
     * still works, and fail the termination with it, so that nobody waits for the pump forever and
     * posts are rejected rather than queued for a loop that will never run them.
     */
    private void terminateAfterLoopFailure(Throwable loopFailure) {
        ShutdownReport report = null;
        Throwable settleFailure = null;
        if (state.get() != TERMINATED) {
            try {
                report = settle(false);
            } catch (Throwable e) {
                settleFailure = e; // settling is best effort now: finish below regardless
            }
        }
        closeAdmission();
        state.set(TERMINATED);
        if (watchdog != null) {
            watchdog.cancel(false);
        }
        PumpLoopFailedException failed = new PumpLoopFailedException(name, report, loopFailure);
        if (settleFailure != null) {
            failed.addSuppressed(settleFailure);
        }
        try {
            LOG.log(System.Logger.Level.ERROR, failed.getMessage(), failed);
        } finally {
            termination.completeExceptionally(failed);
        }
    }

    /** Closes the queues to producers and waits out those mid-post. Pump thread (or no thread yet). */
    private void closeAdmission() {
        if ((admission.get() & CLOSED) == 0) {
            admission.getAndAdd(CLOSED);
        }
        while ((admission.get() & ~CLOSED) != 0) {
            Thread.onSpinWait(); // producers mid-post: a few instructions away from done
        }
    }

    /**
     * Closes admission, settles leftovers and timers, moves to TERMINATED and returns the report
     * (without completing the termination). Pump thread, or the caller of a pump that never ran.
     */
    private ShutdownReport settle(boolean graceful) {
        assert isLoopThread() : notOnLoopThread("terminate()");
        closeAdmission();
        List<Runnable> abandonedTasks = new ArrayList<>();
        List<Runnable> resumptions = new ArrayList<>();
        Runnable r;
        while ((r = tasks.poll()) != null || (r = completions.poll()) != null) {
            if (graceful) {
                runTask(r); // raced in before admission closed: still ours to run
                continue;
            }
            Runnable task = r instanceof TimedTask tt ? tt.task : r;
            if (task == NO_OP) {
                continue; // our own wake-up nudges are not work
            } else if (task instanceof TimerInsertion) {
                // Bookkeeping, not user code: the timer reaches the heap and is settled below with
                // the others (a coroutine timer's onAbandon moves it to the fallback). Dropping the
                // insertion would leave its delay or timeout pending forever.
                task.run();
            } else if (task instanceof kotlin.coroutines.Continuation<?>) {
                // A coroutine resumption (kotlinx dispatches the continuation itself). Dropping it
                // would leave the coroutine suspended forever, and a withContext caller on another
                // thread hanging: hand it to the fallback below, like a dispatch refused after
                // termination.
                resumptions.add(task);
            } else {
                abandonedTasks.add(task);
            }
        }
        int abandonedTimers = 0;
        for (PumpTimer t : timers.abandonAll()) {
            if (t.onAbandon == null) {
                abandonedTimers++;
            } else {
                try {
                    t.onAbandon.run();
                } catch (Throwable e) {
                    reportFailure(e);
                }
            }
        }
        List<String> abandonedCoroutines = PumpCoroutines.describeLiveChildren(scope);
        // After the description, so that the report does not depend on how fast the fallback runs.
        for (Runnable resumption : resumptions) {
            try {
                PumpCoroutines.resumeOnFallback(resumption, new PumpShutdownException(name,
                        "terminated forcibly; the coroutine was cancelled and resumes on the fallback executor"),
                        config.fallbackExecutor());
            } catch (Throwable e) {
                reportFailure(e);
            }
        }
        if (watchdog != null) {
            watchdog.cancel(false);
        }
        state.set(TERMINATED);
        ShutdownReport report = new ShutdownReport(name, graceful && abandonedCoroutines.isEmpty(),
                abandonedCoroutines, abandonedTasks, abandonedTimers,
                sinceShutdownStarted());
        LOG.log(report.isClean() ? System.Logger.Level.DEBUG : System.Logger.Level.WARNING, report.toString());
        return report;
    }

    /** From the earliest shutdown() call until now; zero if there was none (the loop failed). */
    private Duration sinceShutdownStarted() {
        long start = shutdownStartOffset.get();
        return start == NOT_YET ? Duration.ZERO : Duration.ofNanos(Math.max(0, clock.nanoTime() - originNanos - start));
    }

    private static long saturatedNanos(Duration d) {
        try {
            return Math.min(d.toNanos(), MAX_DELAY_NANOS);
        } catch (ArithmeticException e) {
            return MAX_DELAY_NANOS;
        }
    }

    private static Throwable unwrap(Throwable e) {
        while (e instanceof CompletionException && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }

    /** Off the pump thread, {@link #scheduleTimer} posts this to put the timer into the heap. */
    private final class TimerInsertion implements Runnable {
        private final PumpTimer timer;

        TimerInsertion(PumpTimer timer) {
            this.timer = timer;
        }

        @Override
        public void run() {
            timers.add(timer);
        }
    }

    /** A sampled post: carries its enqueue time for the queue-latency histogram. */
    private static final class TimedTask implements Runnable {
        final Runnable task;
        final long enqueuedAt;

        TimedTask(Runnable task, long enqueuedAt) {
            this.task = task;
            this.enqueuedAt = enqueuedAt;
        }

        @Override
        public void run() {
            task.run();
        }
    }
}
