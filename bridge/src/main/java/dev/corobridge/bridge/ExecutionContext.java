package dev.corobridge.bridge;

import java.util.concurrent.Executor;
import kotlinx.coroutines.CoroutineDispatcher;

/**
 * A named place where code runs — a pump, a ring, a pool — with both faces: a Java
 * {@link Executor} (which throws {@link java.util.concurrent.RejectedExecutionException} once the
 * context has shut down) and a Kotlin {@link CoroutineDispatcher}. Tasks record the name in their
 * hop trace.
 */
public interface ExecutionContext extends Executor {

    /** The context's name, as shown in hop traces. */
    String getName();

    /** The Kotlin face of this context. */
    CoroutineDispatcher getDispatcher();
}
