package dev.corobridge.bridge.internal;

import dev.corobridge.bridge.ExecutionContext;
import java.util.Objects;
import java.util.concurrent.Executor;
import kotlinx.coroutines.CoroutineDispatcher;
import kotlinx.coroutines.Dispatchers;
import kotlinx.coroutines.ExecutorCoroutineDispatcher;
import kotlinx.coroutines.ExecutorsKt;

/**
 * Internal API: not for use outside corobridge; may change without notice.
 *
 * <p>Where a task step runs and what its hop is called: the executor behind a coroutine
 * dispatcher that Java hands to {@code Task.start}/{@code thenOn}, and the readable name of an
 * executor or dispatcher in hop traces and observations — an {@link ExecutionContext}'s name,
 * {@code Dispatchers.Default} / {@code Dispatchers.IO} for kotlinx's pools, {@code virtual} for
 * {@link #VIRTUAL}.
 *
 * <p>Stateless; thread-safe.
 */
public final class ContextNames {

    /** Virtual threads, one per step, named for traces ({@code Task.startVirtual}). */
    public static final Executor VIRTUAL = new NamedExecutor("virtual",
            r -> Thread.ofVirtual().name("corobridge-virtual").start(r));

    private ContextNames() {
    }

    /**
     * The executor a step bound to {@code dispatcher} runs on: a bound context's own (a pump's:
     * it rejects after shutdown instead of falling back), kotlinx's pools under their Kotlin names,
     * an executor dispatcher's executor, else the dispatcher as an executor.
     */
    public static Executor executorOf(CoroutineDispatcher dispatcher) {
        Objects.requireNonNull(dispatcher, "dispatcher");
        ExecutionContext bound = BoundDispatchers.contextOf(dispatcher);
        if (bound != null) {
            return bound;
        }
        if (dispatcher == KotlinxPools.DEFAULT_DISPATCHER) {
            return KotlinxPools.DEFAULT; // named as Kotlin names it, not after its CoroutineScheduler
        }
        if (dispatcher == KotlinxPools.IO_DISPATCHER) {
            return KotlinxPools.IO;
        }
        if (dispatcher instanceof Executor e) {
            return e;
        }
        if (dispatcher instanceof ExecutorCoroutineDispatcher ecd) {
            return ecd.getExecutor();
        }
        return new NamedExecutor(dispatcher.toString(), ExecutorsKt.asExecutor(dispatcher));
    }

    /** The name of the context {@code executor} runs steps on (a noted executor: its delegate's). */
    public static String contextName(Executor executor) {
        if (executor instanceof NotedExecutor n) {
            return contextName(n.delegate());
        }
        if (executor instanceof ExecutionContext c) {
            return c.getName();
        }
        if (executor instanceof NamedExecutor n) {
            return n.name();
        }
        String byClass = CLASS_NAMES.get(executor.getClass());
        return byClass.isEmpty() ? executor.toString() : byClass;
    }

    /**
     * A plain executor's name by its class, the same for every run and every instance made at one
     * place (hop traces and metric tags show it): a class's simple name; a lambda's (a hidden class,
     * whose own name carries an address that changes with every run) the class it is written in,
     * with " lambda"; an anonymous class's its binary name after the package ({@code Outer$1}), or
     * empty when it overrides {@code toString}, which then names it.
     */
    private static final ClassValue<String> CLASS_NAMES = new ClassValue<>() {
        @Override
        protected String computeValue(Class<?> type) {
            String binary = type.getName();
            String inPackage = binary.substring(binary.lastIndexOf('.') + 1);
            if (type.isHidden()) {
                int lambda = inPackage.indexOf("$$Lambda");
                return (lambda > 0 ? inPackage.substring(0, lambda) : inPackage.split("/", 2)[0]) + " lambda";
            }
            if (type.isAnonymousClass()) {
                try {
                    return type.getMethod("toString").getDeclaringClass() == Object.class ? inPackage : "";
                } catch (NoSuchMethodException e) {
                    return inPackage; // every class has toString
                }
            }
            return type.getSimpleName();
        }
    };

    /**
     * The readable name of a coroutine dispatcher (any {@code ContinuationInterceptor}) for hop
     * traces: the {@link ExecutionContext}'s name for a context's own dispatcher (a pump's, a ring's,
     * or {@code context.asCoroutineDispatcher()}), {@code "Dispatchers.Default"} /
     * {@code "Dispatchers.IO"} for kotlinx's pools, an executor dispatcher by its executor as
     * {@link #contextName(Executor)} names it, anything else by its {@code toString()}.
     */
    public static String contextName(Object dispatcher) {
        if (dispatcher == null) {
            return "no dispatcher";
        }
        ExecutionContext bound = BoundDispatchers.contextOf(dispatcher);
        if (bound != null) {
            return bound.getName();
        }
        if (dispatcher == KotlinxPools.DEFAULT_DISPATCHER) {
            return KotlinxPools.DEFAULT.name();
        }
        if (dispatcher == KotlinxPools.IO_DISPATCHER) {
            return KotlinxPools.IO.name();
        }
        if (dispatcher instanceof ExecutorCoroutineDispatcher ecd) {
            return contextName(ecd.getExecutor());
        }
        return dispatcher.toString();
    }

    /** The note of a step on {@code executor}: its {@code HopNote.on} label, else {@code fallback}. */
    public static String noteOf(Executor executor, String fallback) {
        return executor instanceof NotedExecutor n ? n.note() : fallback;
    }

    /** kotlinx's shared pools with the names Kotlin code knows them by, for hop traces. */
    private static final class KotlinxPools {
        static final CoroutineDispatcher DEFAULT_DISPATCHER = Dispatchers.getDefault();
        static final CoroutineDispatcher IO_DISPATCHER = Dispatchers.getIO();
        static final NamedExecutor DEFAULT = new NamedExecutor("Dispatchers.Default", ExecutorsKt.asExecutor(DEFAULT_DISPATCHER));
        static final NamedExecutor IO = new NamedExecutor("Dispatchers.IO", ExecutorsKt.asExecutor(IO_DISPATCHER));
    }
}
