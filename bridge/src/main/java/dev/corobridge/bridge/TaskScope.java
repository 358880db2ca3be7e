package dev.corobridge.bridge;

import dev.corobridge.bridge.internal.BlockingGuard;

import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import kotlinx.coroutines.CompletableJob;
import kotlinx.coroutines.CoroutineDispatcher;
import kotlinx.coroutines.CoroutineScope;
import kotlinx.coroutines.ExecutorsKt;
import kotlinx.coroutines.Job;

/**
 * Structured concurrency for Java, on a real kotlinx {@link Job} tree.
 *
 * <pre>{@code
 * try (TaskScope scope = TaskScope.open("load-board")) {
 *     Task<Board> board = scope.fork(io, () -> store.load(id));
 *     Task<User> user = scope.forkSuspend(ui, cont -> users.load(uid, cont));
 *     scope.joinAll();            // first failure cancels the siblings and is rethrown here
 *     return render(board.resultNow(), user.resultNow());
 * }                               // close(): cancels what is left and waits for it to finish
 * }</pre>
 *
 * <ul>
 *   <li>Every fork is a coroutine child of {@link #getJob()} (a plain {@code Job}, not a supervisor):
 *       the first child that fails cancels the scope and so every sibling; later forks start
 *       cancelled.</li>
 *   <li>Kotlin code started in {@link #getScope()} joins the same tree, so Kotlin children and
 *       Java forks are cancelled together.</li>
 *   <li>Cancelling the scope ({@link #cancel()}, or its {@link #getJob() job}) cancels all forks.</li>
 *   <li>Each fork's task has a hop trace of its own: its start and every resume of its coroutine on
 *       another context or thread (see {@link Task#getTrace()}).</li>
 * </ul>
 *
 * <p><b>Thread-safety.</b> Safe from any thread but a fork's own ({@link #joinAll()} and
 * {@link #close()} there throw {@link IllegalStateException}: they would wait for themselves);
 * they block until the children have finished, and therefore refuse to wait on a thread that must never block (use
 * {@link #joinAllAsync()} there); like {@link Awaitable#join()}, they return there without refusing
 * when every child has already finished.
 */
public final class TaskScope implements AutoCloseable {

    private final String name;
    private final CompletableJob job;
    private final CoroutineScope scope;
    /**
     * The forks' tasks not decided yet. A child's job is complete a moment before its task is
     * settled (the job's completion handler settles it), so waiting for the jobs alone could end
     * before the tasks are decided; {@link #joinAllAsync()} waits for these too.
     */
    private final Set<Task<?>> undecidedForks = ConcurrentHashMap.newKeySet();

    private TaskScope(String name) {
        this.name = name;
        this.job = TaskScopes.newScopeJob();
        this.scope = TaskScopes.newScope(job, name);
    }

    /** A new scope. */
    public static TaskScope open(String name) {
        return new TaskScope(Objects.requireNonNull(name, "name"));
    }

    /** A new scope named "TaskScope". */
    public static TaskScope open() {
        return open("TaskScope");
    }

    /** Runs {@code body} as a child on {@code dispatcher}. */
    public <T> Task<T> fork(CoroutineDispatcher dispatcher, Callable<? extends T> body) {
        return tracked(TaskScopes.fork(scope, Objects.requireNonNull(dispatcher, "dispatcher"), Objects.requireNonNull(body, "body")));
    }

    /** Runs {@code body} as a child on {@code executor} (a pump, a ring, any executor). */
    public <T> Task<T> fork(Executor executor, Callable<? extends T> body) {
        return fork(dispatcherOf(executor), body);
    }

    /**
     * Calls a Kotlin {@code suspend} function as a child on {@code dispatcher}:
     * {@code scope.forkSuspend(dispatcher, users::current)} (see {@link Task#startSuspend}).
     */
    public <T> Task<T> forkSuspend(CoroutineDispatcher dispatcher, SuspendCall<T> call) {
        return tracked(TaskScopes.forkSuspend(scope, Objects.requireNonNull(dispatcher, "dispatcher"), Objects.requireNonNull(call, "call")));
    }

    /**
     * Calls a Kotlin {@code suspend} function as a child on {@code context} (a pump, a ring):
     * {@code scope.forkSuspend(ui, users::current)}. The same contexts as {@link Task#startSuspend}.
     */
    public <T> Task<T> forkSuspend(ExecutionContext context, SuspendCall<T> call) {
        return forkSuspend(Objects.requireNonNull(context, "context").getDispatcher(), call);
    }

    /**
     * Waits until every child forked so far has finished. If one failed, the siblings were cancelled
     * and the first failure is rethrown here (unchecked as is, checked in a {@link CompletionException}).
     *
     * @throws IllegalStateException if called, while a child has not finished, on a thread that must
     *     never block
     */
    public void joinAll() throws InterruptedException {
        refuseInOwnFork("joinAll()");
        Throwable failure = joinAllAsync().join();
        if (failure instanceof RuntimeException re) {
            throw re;
        }
        if (failure instanceof Error e) {
            throw e;
        }
        if (failure != null) {
            throw new CompletionException(failure);
        }
    }

    /**
     * Completes when every child forked so far has finished, and every fork's task is decided, with
     * the first failure or {@code null}: the non-blocking {@link #joinAll()}.
     */
    public Awaitable<Throwable> joinAllAsync() {
        Promise<Throwable> joined = new Promise<>();
        TaskScopes.whenChildrenDone(job).onComplete(children -> {
            Throwable failure = children instanceof Outcome.Success<Throwable> s ? s.value() : null;
            List<Task<?>> left = List.copyOf(undecidedForks); // being settled on their threads now
            if (left.isEmpty()) {
                joined.complete(failure);
                return;
            }
            AtomicInteger remaining = new AtomicInteger(left.size());
            for (Task<?> fork : left) {
                fork.onComplete(o -> {
                    if (remaining.decrementAndGet() == 0) {
                        joined.complete(failure);
                    }
                });
            }
        });
        return joined;
    }

    /** {@code fork}, tracked until its task is decided (see {@link #undecidedForks}). */
    private <T> Task<T> tracked(Task<T> fork) {
        if (!fork.isDone()) {
            undecidedForks.add(fork);
            fork.onComplete(o -> undecidedForks.remove(fork));
        }
        return fork;
    }

    /**
     * Cancels every child; the scope accepts no more work. Returns {@code true} iff this call
     * decided the cancellation: {@code false} if the scope was already cancelled — by an earlier
     * {@code cancel()}, a concurrent one that won, or a child's failure.
     */
    public boolean cancel() {
        return TaskScopes.cancelJob(job, new CancellationException("TaskScope " + name + " cancelled"));
    }

    /** Kotlin code launched here joins this scope's job tree. */
    public CoroutineScope getScope() {
        return scope;
    }

    /** The scope's job: the parent of every fork. */
    public Job getJob() {
        return job;
    }

    /**
     * Cancels what is still running and waits for it to finish, also when the calling thread is
     * interrupted (its interrupt status is kept). On a thread that must never block
     * (a pump's) it cancels and then, if anything is still running, throws
     * {@link IllegalStateException}: wait there with {@link #joinAllAsync()} instead.
     */
    @Override
    public void close() {
        refuseInOwnFork("close()");
        cancel();
        Awaitable<Throwable> done = joinAllAsync();
        if (!done.isDone()) {
            BlockingGuard.checkMayBlock("TaskScope.close() (it cancelled the children and would wait for them; "
                    + "use cancel() and joinAllAsync() there)");
        }
        // An interrupt does not end the wait (the children are not done because the closer was
        // interrupted): it is kept and restored afterwards, as StructuredTaskScope.close() does.
        boolean interrupted = false;
        while (true) {
            try {
                done.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** A fork's body that waits for its own scope would wait for itself (as StructuredTaskScope, refuse it). */
    private void refuseInOwnFork(String call) {
        if (TaskScopes.isInForkOf(job)) {
            throw new IllegalStateException("TaskScope " + name + ": " + call + " called from one of its own forks, "
                    + "which would wait for itself; close or join the scope from the code that opened it");
        }
    }

    @Override
    public String toString() {
        return "TaskScope[" + name + ", " + job + "]";
    }

    private static CoroutineDispatcher dispatcherOf(Executor executor) {
        Objects.requireNonNull(executor, "executor");
        if (executor instanceof ExecutionContext c) {
            return c.getDispatcher();
        }
        return ExecutorsKt.from(executor);
    }
}
