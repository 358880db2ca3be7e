package dev.corobridge.bridge;

import dev.corobridge.bridge.internal.Combining;
import dev.corobridge.bridge.internal.ContextNames;
import dev.corobridge.bridge.internal.OutcomeCell;
import dev.corobridge.bridge.internal.OutcomeFields;
import dev.corobridge.bridge.internal.StepObserver;
import dev.corobridge.bridge.internal.StepObservation;
import dev.corobridge.bridge.internal.TaskStep;
import dev.corobridge.bridge.internal.TimeoutExpiry;
import dev.corobridge.context.CapturedContext;
import dev.corobridge.context.ContextPropagation;
import dev.corobridge.context.RestoredContext;
import dev.corobridge.context.internal.ContextSteps;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import kotlinx.coroutines.CoroutineDispatcher;
import kotlinx.coroutines.Deferred;

/**
 * The handle of a running coroutine or asynchronous operation: one async currency for Java and
 * Kotlin. An {@link Awaitable}; from Kotlin, {@code task.await()} suspends and
 * {@code task.asDeferred()} / {@code deferred.asTask()} convert.
 *
 * <h2>Start</h2>
 * {@link #start(Executor, Callable)} on any executor or {@link ExecutionContext} (a pump, a ring),
 * {@link #start(CoroutineDispatcher, Callable)}, {@link #startVirtual(Callable)} for a body that
 * blocks in {@code join()}, {@link #startSuspend} to call a Kotlin {@code suspend} function,
 * {@link #completed}/{@link #failed}, {@link #from(CompletionStage)},
 * {@link #from}.
 *
 * <h2>Compose</h2>
 * {@link #thenOn}, {@link #thenComposeOn}, {@link #recoverOn}, {@link #allOf}, {@link #anyOf},
 * {@link #withTimeout}. <b>Each stage runs on the context it names</b>, never on the thread that
 * happened to complete the previous stage: a stage bound to the pump runs on the pump even when the
 * previous one finished on a ring or pool thread. Failures and cancellations skip the stages that
 * would use the value and travel to the end of the chain without a hop.
 *
 * <h2>Cancellation</h2>
 * {@link #cancel()} decides the outcome at once (a {@link CancellationException}) and cancels the
 * work underneath: the coroutine or {@code Deferred}, the Reactor subscription, the
 * {@code CompletableFuture}. A plain {@link Callable} that already started runs to its end and its
 * result is discarded, as with {@code CompletableFuture}; one that has not started never runs.
 * Cancelling the Kotlin {@code Job} underneath cancels the task. Cancelling a derived task
 * ({@code thenOn} ...) cancels that stage, not the shared task it came from, and withdraws the
 * stage from that task (a long-lived task keeps none of its cancelled stages); <b>cancelling an
 * awaiter</b> (an interrupted Java {@code join()}, a cancelled Kotlin coroutine in
 * {@code task.await()}) only stops that wait and leaves the task alone, exactly like kotlinx's
 * {@code Deferred.await()}. {@link #withTimeout} is the exception by design: it owns the task it
 * limits and cancels it when time runs out; the limited task then <i>fails</i> with a
 * {@link TaskTimeoutException} (a failure, not a cancellation: nobody who awaits it cancelled
 * anything). A bounded wait ({@code join(Duration)}) throws
 * {@link java.util.concurrent.TimeoutException} instead and leaves the task running.
 *
 * <h2>Ownership</h2>
 * A task is <i>owned</i> by whoever holds it: {@link #close()} cancels it, so try-with-resources
 * bounds its life. {@link #detach()} gives up ownership: a failure nobody awaits is then reported to
 * {@link Tasks#uncaughtFailureHandler()} (default: logged with the hop trace, and counted).
 * {@link TaskScope} gives Java structured concurrency on a real kotlinx {@code Job} tree.
 *
 * <h2>Exceptions travel</h2>
 * A failure thrown on any thread is rethrown by {@link #join()} with its original stack, plus a
 * suppressed {@link HopTraceException} listing the task's hops (context, thread, time) whose own
 * stack is the await site. Each awaiter gets an exception of its own for that: a copy of the
 * original of the same class (the original is its cause), so that awaiters never see each other's
 * traces and the original is never changed; an exception that cannot be copied faithfully is
 * rethrown unchanged, without the trace (see {@link Awaitable#join()}). {@link #getTrace()} returns
 * the hops (bounded; {@link Tasks#setTracing}): one per stage of a Java chain, and for a task backed
 * by a coroutine ({@link #startSuspend}, {@link TaskScope#fork}, Kotlin's {@code scope.task {}}) one
 * per start or resume of the coroutine on another thread or context than the last step, recorded
 * by the coroutine itself (a {@code HopNote} in its context labels a step). Contexts appear under
 * readable names: an {@link ExecutionContext}'s, {@code Dispatchers.Default}, {@code Dispatchers.IO}.
 * A Java stage is labelled with {@link HopNote#on(Executor, String)}:
 * {@code task.thenOn(HopNote.on(ui, "render"), v -> render(v))}. A task of a {@code Deferred}
 * started elsewhere ({@link #from}, Kotlin's {@code asTask()}) records where it completed.
 *
 * <h2>Context travels</h2>
 * A task captures the thread-bound context of the thread that creates it — SLF4J's MDC and the
 * thread-locals registered with Micrometer's {@code ContextRegistry}, such as the current
 * observation and tracing span — and restores it around every step it runs, on whatever thread,
 * removing it again afterwards; the stages of a chain carry the values of its first task. See
 * {@link dev.corobridge.context.ContextPropagation} (on by default; nothing to do when neither
 * library is present).
 *
 * <p><b>Thread-safety.</b> Safe from any thread.
 *
 * @param <T> the value type
 */
public final class Task<T> implements Awaitable<T>, AutoCloseable {

    private static final int TRACE_CAPACITY = 16;
    /** The settle-once outcome in this task's own two fields below: a task is one object. */
    private static final OutcomeFields OUTCOME = OutcomeFields.in(java.lang.invoke.MethodHandles.lookup());
    private static final java.lang.invoke.VarHandle OBSERVED;
    private static final java.lang.invoke.VarHandle DETACHED;

    static {
        try {
            OBSERVED = java.lang.invoke.MethodHandles.lookup().findVarHandle(Task.class, "observed", StepObserver.Step.class);
            DETACHED = java.lang.invoke.MethodHandles.lookup().findVarHandle(Task.class, "detached", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** {@link OutcomeFields}' state word: null or a stack of callbacks (pending), or the {@link Outcome}. */
    @SuppressWarnings("unused")
    private volatile Object state;
    /** {@link OutcomeFields}' count of withdrawn callbacks in the pending stack. */
    @SuppressWarnings("unused")
    private volatile int withdrawn;
    private final String name;
    private final HopTrace trace;
    /** What each step restores on its thread ({@link ContextPropagation}); null: nothing to carry. */
    private final CapturedContext context;
    private volatile Consumer<CancellationException> canceller;
    /** Starts the lazily started coroutine behind this task at its first callback; null when there is none. */
    private volatile Runnable lazyStart;
    /**
     * For the task of a coroutine: settles it from the coroutine if that has completed, for a
     * look at the task made before the coroutine's completion handler ran ({@link #isDone()},
     * {@link #outcomeOrNull()}). A coroutine's job is complete a moment before its handlers run,
     * and its parent may complete in that moment: a task looked at after its scope returned is
     * decided, as the coroutine's {@code Deferred} is.
     */
    private volatile Runnable settleIfCompleted;
    /** The observation of this task's work, until it ends ({@link #observeHere}). */
    private volatile StepObserver.Step observed;
    /**
     * The first observed step of this task's chain (this task's own, or a stage's before it): the
     * parent of the later stages' observations when no observation is current, so that a chain
     * started outside any observation is one trace. Written where a step begins or, for a stage,
     * before its work is submitted; read by the stages after it, which the decision of this task
     * (a compare-and-set) orders after the write.
     */
    private StepObserver.Step chainObservation;
    private volatile boolean detached;
    /** For {@link #from(Awaitable)} (and its {@link #withTimeout}): what decides this task's cancellation. */
    private volatile Awaitable<T> adopted;

    Task(String name, HopTrace trace, CapturedContext context) {
        this.name = name;
        this.trace = trace;
        this.context = context;
    }

    /** A task that carries the context of the current thread. */
    Task(String name, HopTrace trace) {
        this(name, trace, capturedHere());
    }

    /** The current thread's context for a new task, or null when there is nothing to carry. */
    static CapturedContext capturedHere() {
        CapturedContext c = ContextPropagation.capture();
        return c.isEmpty() ? null : c;
    }

    Task(String name) {
        this(name, newTrace());
    }

    /** A trace for a new task, or {@code null} when tracing is off ({@link Tasks#setTracing}). */
    static HopTrace newTrace() {
        return Tasks.isTracing() ? new HopTrace(TRACE_CAPACITY) : null;
    }

    // ------------------------------------------------------------------ start

    /**
     * Runs {@code body} on {@code executor}. If the executor rejects it (a context that shut down),
     * the task is cancelled with a {@link ContextShutdownException}.
     */
    public static <T> Task<T> start(Executor executor, Callable<? extends T> body) {
        Objects.requireNonNull(executor, "executor");
        Objects.requireNonNull(body, "body");
        String ctx = ContextNames.contextName(executor);
        Task<T> t = new Task<>(ctx);
        t.submit(executor, ctx, new Start<>(t, ctx, ContextNames.noteOf(executor, ctx), body), true); // one object for the stage and its runnable
        return t;
    }

    /** Runs {@code body} on {@code dispatcher}. */
    public static <T> Task<T> start(CoroutineDispatcher dispatcher, Callable<? extends T> body) {
        return start(ContextNames.executorOf(dispatcher), body);
    }

    /**
     * Runs {@code body} on a new virtual thread, where blocking {@code join()} calls are cheap:
     * hops read as {@code Task.start(ui, () -> board.apply(x)).join()}.
     */
    public static <T> Task<T> startVirtual(Callable<? extends T> body) {
        return start(ContextNames.VIRTUAL, body);
    }

    /**
     * Calls a Kotlin {@code suspend} function on {@code dispatcher}: a method reference for one
     * without arguments, {@code Task.startSuspend(dispatcher, userService::current)}, a lambda that
     * passes the continuation on for one with arguments,
     * {@code Task.startSuspend(dispatcher, cont -> userService.load(id, cont))}; no type witness is
     * needed. The task is backed by a coroutine: cancelling it cancels the coroutine, and every hop
     * the coroutine makes (a {@code withContext} to another context and back) is in {@link #getTrace()}.
     */
    public static <T> Task<T> startSuspend(CoroutineDispatcher dispatcher, SuspendCall<T> call) {
        return TaskCoroutines.startSuspend(Objects.requireNonNull(dispatcher, "dispatcher"),
                Objects.requireNonNull(call, "call"));
    }

    /**
     * {@link #startSuspend(CoroutineDispatcher, SuspendCall)} on a context's dispatcher:
     * {@code Task.startSuspend(ui, userService::current)}.
     */
    public static <T> Task<T> startSuspend(ExecutionContext context, SuspendCall<T> call) {
        return startSuspend(Objects.requireNonNull(context, "context").getDispatcher(), call);
    }

    /** An already completed task. */
    public static <T> Task<T> completed(T value) {
        Task<T> t = new Task<>("completed", null);
        t.succeed(value);
        return t;
    }

    /** An already failed (or, for a {@link CancellationException}, cancelled) task. */
    public static <T> Task<T> failed(Throwable error) {
        Task<T> t = new Task<>("failed", null);
        t.failWith(Objects.requireNonNull(error, "error"));
        return t;
    }

    /** A task that completes with {@code stage}; cancelling it cancels {@code stage} if it is a {@link Future}. */
    public static <T> Task<T> from(CompletionStage<T> stage) {
        Objects.requireNonNull(stage, "stage");
        Task<T> t = new Task<>("CompletionStage");
        stage.whenComplete((v, e) -> {
            if (e != null) {
                t.failWith(unwrapCompletion(e));
            } else {
                t.succeed(v);
            }
        });
        if (stage instanceof Future<?> f) {
            t.setCanceller(cause -> {
                try {
                    f.cancel(false); // a Future takes no cause
                } catch (UnsupportedOperationException e) {
                    // A stage that cannot be cancelled (a minimal stage): the task is, on its own.
                }
            });
        }
        return t;
    }

    /**
     * The task of a kotlinx {@code Deferred}: cancellation flows both ways. The coroutine was started
     * elsewhere, without a hop recorder, so its trace holds one step, where it completed (start it
     * with {@code scope.task {}} to have every hop).
     */
    @SuppressWarnings("unchecked")
    public static <T> Task<T> from(Deferred<? extends T> deferred) {
        return TaskCoroutines.taskOf((Deferred<T>) Objects.requireNonNull(deferred, "deferred"), "Deferred");
    }

    /**
     * The task of any {@link Awaitable} — a {@link Promise}, a mutex lock, a channel receive — so
     * Java can compose it: {@code Task.from(channel.receiveAsync()).thenOn(ui, v -> show(v))}. The task
     * completes with the awaitable's outcome; a {@code Task} is returned as is.
     *
     * <p><b>Cancellation is decided by the awaitable.</b> {@link #cancel()} (and a {@link #withTimeout}
     * of this task, running out or cancelled) cancels the awaitable and the task follows its decision: when the awaitable
     * could not be withdrawn any more — a channel receive that already took an element — the task
     * completes with that value instead of being cancelled, so nothing is lost on the way.
     */
    public static <T> Task<T> from(Awaitable<T> awaitable) {
        Objects.requireNonNull(awaitable, "awaitable");
        if (awaitable instanceof Task<T> t) {
            return t;
        }
        Task<T> t = new Task<>("of " + awaitable.getClass().getSimpleName(), awaitable.traceOrNull());
        t.adopted = awaitable;
        awaitable.onComplete(t::decide);
        return t;
    }

    // ------------------------------------------------------------------ compose

    /** Applies {@code fn} to the value on {@code executor}. */
    public <R> Task<R> thenOn(Executor executor, Function<? super T, ? extends R> fn) {
        return continueOn(executor, fn, (next, o) -> o instanceof Outcome.Success<T> s
                ? () -> new Outcome.Success<>(fn.apply(s.value())) : null);
    }

    /** Applies {@code fn} to the value on {@code dispatcher}. */
    public <R> Task<R> thenOn(CoroutineDispatcher dispatcher, Function<? super T, ? extends R> fn) {
        return thenOn(ContextNames.executorOf(dispatcher), fn);
    }

    /**
     * Runs {@code fn} on {@code executor} and then waits, without blocking, for the awaitable it
     * returns. Cancelling the result cancels that awaitable.
     */
    public <R> Task<R> thenComposeOn(Executor executor, Function<? super T, ? extends Awaitable<R>> fn) {
        return continueOn(executor, fn, (next, o) -> o instanceof Outcome.Success<T> s
                ? new Composing<T, R>(next, fn, s.value()) : null);
    }

    /** {@link #thenComposeOn(Executor, Function)} on a dispatcher. */
    public <R> Task<R> thenComposeOn(CoroutineDispatcher dispatcher, Function<? super T, ? extends Awaitable<R>> fn) {
        return thenComposeOn(ContextNames.executorOf(dispatcher), fn);
    }

    /**
     * Turns a failure into a value by running {@code fn} on {@code executor}; values pass through
     * and cancellation is not recovered (it still cancels).
     */
    public Task<T> recoverOn(Executor executor, Function<? super Throwable, ? extends T> fn) {
        return continueOn(executor, fn, (next, o) -> o instanceof Outcome.Failure<T> f
                ? () -> new Outcome.Success<>(fn.apply(f.error())) : null);
    }

    /**
     * The step after this task, run on {@code executor} (the body of {@link #thenOn},
     * {@link #thenComposeOn} and {@link #recoverOn}): once this task completes, {@code stage} is
     * given the new task and this task's outcome and returns the work to run on {@code executor}
     * for it, or null for an outcome the step passes on unchanged (it must then be a failure or
     * cancellation, or {@code R} must be {@code T}). The work returns the new task's outcome, or
     * null when it arranged for the task to be decided later.
     */
    private <R> Task<R> continueOn(Executor executor, Object fn,
            BiFunction<Task<R>, Outcome<T>, Callable<Outcome<R>>> stage) {
        Objects.requireNonNull(executor, "executor");
        Objects.requireNonNull(fn, "fn");
        String ctx = ContextNames.contextName(executor);
        Task<R> next = derived(ctx);
        // A stage cancelled while this task is pending withdraws its callback: a long-lived task
        // chained and cancelled again and again keeps none of the stages (or what their functions
        // captured). Set before the callback is registered, so that thenComposeOn's own canceller,
        // set when the callback runs, replaces it and is never replaced by it.
        Registration[] waiting = new Registration[1];
        next.setCanceller(cause -> {
            Registration w = waiting[0];
            if (w != null) {
                w.dispose();
            }
        });
        waiting[0] = onComplete(o -> {
            Callable<Outcome<R>> work = stage.apply(next, o);
            if (work != null) {
                next.chainObservation = chainObservation;
                next.runOn(executor, ctx, ContextNames.noteOf(executor, next.name), work);
            } else {
                next.chainObservation = chainObservation; // a stage after the skipped one stays in the chain's trace
                next.decide(castFailure(o));
            }
        });
        return next;
    }

    /**
     * This task limited to {@code limit}: when the limit passes first, the result <b>fails</b> with a
     * {@link TaskTimeoutException} and this task — the work — is cancelled (the limit owns the
     * work; its cancellation's cause is the timeout; the result does not wait for the work's own
     * cleanup after that cancellation). Cancelling the result cancels this task too, and the result
     * is then cancelled (also when the limit passes in that instant).
     * For a task {@linkplain #from(Awaitable) of an awaitable} the awaitable decides: if it can no
     * longer be withdrawn, the result completes with its value instead.
     *
     * <p>To wait at most {@code d} without stopping the work, use {@link #join(Duration)} (Java;
     * it throws {@link java.util.concurrent.TimeoutException}) or kotlinx's
     * {@code withTimeout(d) { task.await() }} (Kotlin; that one cancels the waiting block, not the task).
     *
     * @throws IllegalArgumentException if {@code limit} is negative
     */
    public Task<T> withTimeout(Duration limit) {
        Objects.requireNonNull(limit, "limit");
        if (limit.isNegative()) {
            throw new IllegalArgumentException("limit must not be negative, was " + limit);
        }
        Task<T> next = derived("timeout " + limit);
        TimeoutExpiry<T> expiry = new TimeoutExpiry<>(this, limit);
        ScheduledFuture<?> timer = Tasks.TIMER.schedule(expiry, Math.max(0, Waiting.saturatedNanos(limit)), TimeUnit.NANOSECONDS);
        if (adopted != null) {
            next.adopted = this;
        } else {
            next.setCanceller(this::cancel);
        }
        onComplete(o -> {
            timer.cancel(false);
            next.decide(expiry.outcomeFor(o));
        });
        return next;
    }

    /**
     * All values, in order, once every input succeeded; the first failure or cancellation decides
     * the result at once. The inputs are not cancelled (they may be shared): use {@link TaskScope}
     * for "first failure cancels siblings"; once the result is decided (or cancelled) its callbacks
     * are withdrawn from the inputs still pending. An empty list gives an empty list.
     */
    public static <T> Task<List<T>> allOf(List<? extends Awaitable<? extends T>> inputs) {
        List<? extends Awaitable<? extends T>> in = List.copyOf(inputs);
        Task<List<T>> all = new Task<>("allOf(" + in.size() + ")");
        if (in.isEmpty()) {
            all.succeed(List.of());
            return all;
        }
        AtomicReferenceArray<T> values = new AtomicReferenceArray<>(in.size());
        AtomicInteger remaining = new AtomicInteger(in.size());
        Combining.subscribeAll(all, in, index -> o -> {
            if (o instanceof Outcome.Success<? extends T> s) {
                values.set(index, s.value());
                if (remaining.decrementAndGet() == 0) {
                    List<T> out = new ArrayList<>(values.length());
                    for (int j = 0; j < values.length(); j++) {
                        out.add(values.get(j));
                    }
                    all.succeed(java.util.Collections.unmodifiableList(out));
                }
            } else {
                all.decide(castFailure(o));
            }
        });
        return all;
    }

    /** {@link #allOf(List)} for a few inputs. */
    @SafeVarargs
    public static <T> Task<List<T>> allOf(Awaitable<? extends T>... inputs) {
        return allOf(Arrays.asList(inputs));
    }

    /**
     * The outcome of whichever input settles first — value, failure or cancellation, like
     * {@code CompletableFuture.anyOf}. The others are not cancelled; once the result is decided (or
     * cancelled) its callbacks are withdrawn from them, so a long-lived input raced again and again
     * keeps nothing of the past races.
     *
     * @throws IllegalArgumentException for an empty list (it would never complete)
     */
    public static <T> Task<T> anyOf(List<? extends Awaitable<? extends T>> inputs) {
        List<? extends Awaitable<? extends T>> in = List.copyOf(inputs);
        if (in.isEmpty()) {
            throw new IllegalArgumentException("anyOf of no inputs would never complete");
        }
        Task<T> any = new Task<>("anyOf(" + in.size() + ")");
        Combining.subscribeAll(any, in, index -> o -> any.decide(widen(o)));
        return any;
    }

    /** {@link #anyOf(List)} for a few inputs. */
    @SafeVarargs
    public static <T> Task<T> anyOf(Awaitable<? extends T>... inputs) {
        return anyOf(Arrays.asList(inputs));
    }

    // ------------------------------------------------------------------ awaitable

    /**
     * Cancels the task and the work underneath; {@code true} if this call decided the outcome. For
     * a task {@linkplain #from(Awaitable) of an awaitable} the awaitable decides (see there).
     */
    @Override
    public boolean cancel() {
        return cancel(new CancellationException("task " + name + " cancelled"));
    }

    /** Cancels with {@code cause}. */
    public boolean cancel(CancellationException cause) {
        Awaitable<T> source = adopted;
        if (source != null) {
            // The source decides; when it is withdrawn its outcome reaches this task synchronously
            // through the callback registered in from(...).
            return OutcomeCell.cancel(source, cause);
        }
        return decide(new Outcome.Cancelled<>(Objects.requireNonNull(cause, "cause")));
    }

    @Override
    public final boolean isDone() {
        if (OUTCOME.isDone(this)) {
            return true;
        }
        Runnable settle = settleIfCompleted;
        if (settle != null) {
            settle.run();
        }
        return OUTCOME.isDone(this); // again also without one: the handler clears it once it has decided
    }

    @Override
    public final Outcome<T> outcomeOrNull() {
        Outcome<T> o = OUTCOME.outcomeOrNull(this);
        if (o != null) {
            return o;
        }
        Runnable settle = settleIfCompleted;
        if (settle != null) {
            settle.run();
        }
        return OUTCOME.outcomeOrNull(this);
    }

    /**
     * {@inheritDoc} A task of a lazily started coroutine ({@code CoroutineStart.LAZY}) is started by
     * its first callback or waiter: every wait and chained stage registers one.
     */
    @Override
    public final Registration onComplete(Consumer<? super Outcome<T>> callback) {
        Registration r = OUTCOME.onComplete(this, callback);
        Runnable start = lazyStart;
        if (start != null) {
            lazyStart = null;
            start.run(); // idempotent: two first waiters at once both start it, once
        }
        return r;
    }

    @Override
    public HopTrace traceOrNull() {
        return trace;
    }

    /** The hops this task (and the stages before it) made; empty when tracing is off. */
    public HopTrace getTrace() {
        return trace != null ? trace : new HopTrace(2);
    }

    /** Owned-task semantics: cancels the task if it is still running. */
    @Override
    public void close() {
        cancel();
    }

    /**
     * Gives up ownership: {@link #close()} is no longer expected, and a failure (not a
     * cancellation) is reported to {@link Tasks#uncaughtFailureHandler()} because nobody will await
     * it. Returns this task.
     */
    public Task<T> detach() {
        if (!detached && DETACHED.compareAndSet(this, false, true)) { // once, also when two threads detach at once
            onComplete(o -> {
                if (o instanceof Outcome.Failure<T> f) {
                    Tasks.report(this, f.error());
                }
            });
        }
        return this;
    }

    /** Whether {@link #detach()} was called. */
    public boolean isDetached() {
        return detached;
    }

    // ------------------------------------------------------------------ interop

    /**
     * A {@code CompletableFuture} with this task's outcome; cancelling the future cancels the task.
     */
    public CompletableFuture<T> toCompletableFuture() {
        CompletableFuture<T> f = new CompletableFuture<>() {
            @Override
            public boolean cancel(boolean mayInterruptIfRunning) {
                // The task decides: a view cancelled beside a task that kept its value would lie.
                boolean cancelled = Task.this.cancel();
                if (cancelled) {
                    super.cancel(mayInterruptIfRunning); // now, not only once the task's callback runs
                }
                return cancelled || isCancelled();
            }
        };
        onComplete(o -> {
            switch (o) {
                case Outcome.Success<T> s -> f.complete(s.value());
                case Outcome.Failure<T> x -> f.completeExceptionally(x.error());
                case Outcome.Cancelled<T> c -> f.completeExceptionally(c.cause());
            }
        });
        return f;
    }

    @Override
    public String toString() {
        return "Task[" + name + ", " + (isDone() ? outcomeOrNull() : "pending") + "]";
    }

    // ------------------------------------------------------------------ internals

    /**
     * Decides the outcome if it is still pending: ends the observation and stops the work of a
     * cancelled task ({@link #onDecided}), then runs every callback. {@code true} if this call decided it.
     */
    boolean decide(Outcome<T> outcome) {
        return decide(outcome, null);
    }

    /**
     * {@link #decide(Outcome)}; if the decision detached callbacks and {@code clear} is not null,
     * what {@code clear} returns (null: nothing to undo) is open while they run and closed after
     * them (a failure there is reported). See {@link #settle(Outcome, Supplier)}.
     */
    private boolean decide(Outcome<T> outcome, Supplier<? extends AutoCloseable> clear) {
        Object callbacks = OUTCOME.decide(this, outcome);
        if (callbacks == OutcomeFields.LOST) {
            return false;
        }
        onDecided(outcome);
        AutoCloseable cleared = clear != null && OUTCOME.detachedAny(callbacks) ? clear.get() : null;
        if (cleared == null) {
            OUTCOME.runCallbacks(callbacks, outcome);
            return true;
        }
        try {
            OUTCOME.runCallbacks(callbacks, outcome);
        } finally {
            try {
                cleared.close();
            } catch (Throwable e) {
                Tasks.reportUncaught(e);
            }
        }
        return true;
    }

    /** A cancelled task cancels the work underneath, once, at the moment it is decided. Must not throw. */
    private void onDecided(Outcome<T> outcome) {
        if (observed != null) {
            endObservation(outcome);
        }
        if (outcome instanceof Outcome.Cancelled<T> cancelled) {
            Consumer<CancellationException> c = canceller;
            if (c != null) {
                try {
                    c.accept(cancelled.cause()); // the work is cancelled with the task's cause
                } catch (Throwable e) {
                    Tasks.reportUncaught(e);
                }
            }
        }
    }

    private boolean succeed(T value) {
        return decide(new Outcome.Success<>(value));
    }

    private boolean failWith(Throwable error) {
        return decide(Outcome.ofError(error));
    }

    /** Settles this task from coroutine machinery (Kotlin helpers in this package). */
    boolean settle(Outcome<T> outcome) {
        return decide(outcome);
    }

    /**
     * {@link #settle(Outcome)} from a coroutine's completion, on a thread that may hold the task's
     * own values: if the decision detached callbacks, {@code clear} is called and what it returns
     * (null: nothing to undo) is open while they run — what they resume inline is not the task's
     * work — and closed after them (a failure there is reported). Whether callbacks run is known
     * only once the decision has detached them, so a callback registered from another thread up to
     * that instant runs inside the clear, and one registered after it runs on its own thread.
     */
    boolean settle(Outcome<T> outcome, Supplier<? extends AutoCloseable> clear) {
        return decide(outcome, Objects.requireNonNull(clear, "clear"));
    }

    /** See {@link #settleIfCompleted}: {@code settle} decides this task if its coroutine has completed. */
    void settleWhenLookedAt(Runnable settle) {
        settleIfCompleted = settle;
    }

    /** Has the first {@link #onComplete} run {@code start} (a lazily started coroutine's start). */
    void startOnFirstWait(Runnable start) {
        lazyStart = start;
    }

    /** What cancels the work underneath, with the task's cancellation as its cause. */
    void setCanceller(Consumer<CancellationException> r) {
        canceller = r;
        if (outcomeOrNull() instanceof Outcome.Cancelled<T> cancelled) {
            r.accept(cancelled.cause()); // cancelled before the work was attached
        }
    }

    void hop(String context, String note) {
        if (trace != null) {
            trace.note(context, note);
        }
    }

    /** The next stage of a chain: shares this task's trace and carries its context. */
    private <R> Task<R> derived(String ctx) {
        return new Task<>(stageName(name, ctx), trace != null ? trace : newTrace(), context);
    }

    /** The longest name a stage takes from its chain; longer chains keep their first and last hop. */
    private static final int MAX_STAGE_NAME = 160;
    private static final String HOP = " → ";

    /**
     * A stage's name: its chain's ({@code parent}) and the context it runs on; once that grows past
     * {@link #MAX_STAGE_NAME}, the chain's first name, an ellipsis and the context (a chain of
     * thousands of stages would otherwise carry names, and cancellation messages, of its length).
     */
    static String stageName(String parent, String ctx) {
        if (parent.length() + HOP.length() + ctx.length() <= MAX_STAGE_NAME) {
            return parent + HOP + ctx;
        }
        int first = parent.indexOf(HOP);
        return (first < 0 ? parent : parent.substring(0, first)) + HOP + "…" + HOP + ctx;
    }

    /** Runs a stage on {@code executor}, settling this task with its outcome or what it throws. */
    private void runOn(Executor executor, String ctx, String note, Callable<Outcome<T>> stage) {
        submit(executor, ctx, new Stage<>(this, ctx, note, stage), false);
    }

    /**
     * One step of this task's work on the current thread (a start's body, a stage): unless the task
     * was already decided (cancelled before it started: the body never runs), records the hop,
     * restores the task's context, begins its observation, calls {@code body}, and decides the task
     * with what it returns (null: it will be decided later) or throws — after the observation's
     * scope closed and the thread's own values are back: what deciding resumes on this thread (a
     * callback, a coroutine on a dispatcher that resumes inline, another chain's stage) is not this
     * task's work and must not see its context (a request without values awaiting another's task
     * would run as that request). A restore that throws decides the task with that failure
     * instead (the body never runs; the restore already put the thread's own values back); one
     * that throws while putting the thread's values back is reported, and the outcome stands.
     * Nothing escapes to the executor.
     */
    private void runStep(String ctx, String note, Callable<Outcome<T>> body) {
        if (isDone()) {
            return;
        }
        hop(ctx, note);
        CapturedContext c = context;
        RestoredContext restored;
        try {
            restored = c != null ? ContextSteps.enter(c) : null; // closed once below; shared on a clean thread
        } catch (Throwable e) {
            decide(Outcome.ofError(e));
            return;
        }
        Outcome<T> result;
        try {
            AutoCloseable observing = observeHere(ctx, note);
            try {
                result = body.call();
            } catch (Throwable e) {
                result = Outcome.ofError(e);
            } finally {
                if (observing != null) {
                    StepObservation.close(observing);
                }
            }
        } finally {
            if (restored != null) {
                closeRestored(restored);
            }
        }
        if (result != null) {
            decide(result);
        } else if (body instanceof Composing<?, ?> composing) {
            composing.awaitInner(); // after the put-back too: an inner decided already decides this task at once
        }
    }

    /** Puts the thread's own values back after a step; a failure there is reported, never thrown. */
    private static void closeRestored(RestoredContext restored) {
        try {
            restored.close();
        } catch (Throwable e) {
            Tasks.reportUncaught(e);
        }
    }

    /**
     * Begins the observation of this task's work on the current thread ({@link StepObservation}):
     * returns the scope to close when the work on this thread is done, or null when nothing observes.
     * The observation ends when the task is decided ({@link #onDecided}), exactly once; an observer
     * never fails the task.
     */
    AutoCloseable observeHere(String ctx, String note) {
        StepObserver.Step step = StepObservation.begin(name, ctx, note, chainObservation);
        if (step == null) {
            return null;
        }
        adoptObservation(step);
        return StepObservation.open(step);
    }

    /** Makes {@code step} this task's observation, ended when the task is decided (at once if it is). */
    void adoptObservation(StepObserver.Step step) {
        if (chainObservation == null) {
            chainObservation = step;
        }
        observed = step;
        Outcome<T> decided = outcomeOrNull();
        if (decided != null) {
            endObservation(decided); // decided meanwhile: onDecided may have missed the step
        }
    }

    /** Whether this task's work is observed ({@link #adoptObservation} was called and it has not ended yet). */
    boolean isObservedWork() {
        return observed != null;
    }

    /** The observed step's hop (coroutine-backed tasks: each hop of the coroutine). */
    void observeHop(String ctx, String note) {
        StepObserver.Step step = observed;
        if (step != null) {
            StepObservation.hop(step, ctx, note);
        }
    }

    private void endObservation(Outcome<T> outcome) {
        StepObserver.Step step = (StepObserver.Step) OBSERVED.getAndSet(this, null);
        if (step != null) {
            StepObservation.end(step, outcome);
        }
    }

    /**
     * Hands {@code run} to {@code executor}; a rejection cancels this task as shut down. Anything
     * else the executor throws fails this task with it (a stage would otherwise wait for good) and,
     * if {@code rethrow} (a start: its caller is there), is thrown on to the caller as well.
     */
    private void submit(Executor executor, String ctx, Runnable run, boolean rethrow) {
        try {
            executor.execute(run);
        } catch (RejectedExecutionException e) {
            decide(new Outcome.Cancelled<>(new ContextShutdownException(ctx + " rejected the task (it has shut down): " + e.getMessage())));
        } catch (RuntimeException | Error e) {
            decide(new Outcome.Failure<>(e));
            if (rethrow) {
                throw e;
            }
        }
    }

    /** The body of {@link #start(Executor, Callable)}: what {@link #runOn} does, in one object. */
    private static final class Start<T> implements TaskStep, Callable<Outcome<T>> {
        private final Task<T> task;
        private final String ctx;
        private final String note;
        private final Callable<? extends T> body;

        Start(Task<T> task, String ctx, String note, Callable<? extends T> body) {
            this.task = task;
            this.ctx = ctx;
            this.note = note;
            this.body = body;
        }

        @Override
        public void run() {
            task.runStep(ctx, note, this);
        }

        @Override
        public Outcome<T> call() throws Exception {
            return new Outcome.Success<>(body.call());
        }

        @Override
        public void dropped(ContextShutdownException cause) {
            task.decide(new Outcome.Cancelled<>(cause));
        }
    }

    /**
     * The work of a {@link #thenComposeOn} stage: calls the function in the step (with the chain's
     * context), and {@link #awaitInner() waits} for the awaitable it returned once the step has put
     * the thread's own values back ({@link #runStep}). An awaitable decided already runs the
     * callback at once, and so decides the stage's task — and resumes whatever waits for it — on
     * this thread: inside the step, that would see the chain's values.
     */
    private static final class Composing<T, R> implements Callable<Outcome<R>> {
        private final Task<R> next;
        private final Function<? super T, ? extends Awaitable<R>> fn;
        private final T value;
        private Awaitable<R> inner; // written and read on the step's thread

        Composing(Task<R> next, Function<? super T, ? extends Awaitable<R>> fn, T value) {
            this.next = next;
            this.fn = fn;
            this.value = value;
        }

        @Override
        public Outcome<R> call() {
            inner = Objects.requireNonNull(fn.apply(value), "thenComposeOn function returned null");
            return null; // decided when the inner awaitable is
        }

        /**
         * After the step: cancelling the stage's task cancels the inner awaitable, whose outcome
         * decides it. What the awaitable throws here (another implementation's {@code onComplete}
         * or {@code cancel}) decides the stage's task, as it did inside the step.
         */
        void awaitInner() {
            Awaitable<R> in = inner;
            if (in != null) {
                try {
                    next.setCanceller(cause -> OutcomeCell.cancel(in, cause));
                    in.onComplete(next::decide);
                } catch (Throwable e) {
                    next.decide(Outcome.ofError(e));
                }
            }
        }
    }

    /** A later step of a chain ({@link #runOn}), handed to its executor. */
    private record Stage<T>(Task<T> task, String ctx, String note, Callable<Outcome<T>> stage) implements TaskStep {

        @Override
        public void run() {
            task.runStep(ctx, note, stage);
        }

        @Override
        public void dropped(ContextShutdownException cause) {
            task.decide(new Outcome.Cancelled<>(cause));
        }
    }

    @SuppressWarnings("unchecked")
    private static <T> Outcome<T> widen(Outcome<? extends T> o) {
        return (Outcome<T>) o;
    }

    @SuppressWarnings("unchecked")
    private static <R> Outcome<R> castFailure(Outcome<?> o) {
        // only Failure or Cancelled, or (recoverOn) a value of the same type: no value of the wrong type travels
        return (Outcome<R>) o;
    }

    private static Throwable unwrapCompletion(Throwable e) {
        while ((e instanceof java.util.concurrent.CompletionException || e instanceof java.util.concurrent.ExecutionException)
                && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }
}
