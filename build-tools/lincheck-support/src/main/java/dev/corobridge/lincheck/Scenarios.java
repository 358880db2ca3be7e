package dev.corobridge.lincheck;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;

/**
 * Hand-written Lincheck scenarios from Java (Lincheck's scenario DSL wants Kotlin function
 * references): each thread is a list of operations such as {@code "register; complete(1)"}, by
 * the name of an {@code @Operation} method of the test class and its {@code int} arguments.
 *
 * <p>Random scenarios find most races; a hand-written one pins down a race that needs a particular
 * mix of operations (a registration, its withdrawal and a settle call), so that every run explores
 * it, or fixes a mix that must balance (an owner waiting for as many items as the producers
 * publish).
 */
public final class Scenarios {

    private Scenarios() {
    }

    /** A scenario with only a parallel part: one thread per argument. */
    public static ExecutionScenario parallel(Class<?> testClass, String... threads) {
        return scenario(testClass, "", "", threads);
    }

    /** A scenario: {@code init} runs first, then {@code threads} in parallel, then {@code post}. */
    public static ExecutionScenario scenario(Class<?> testClass, String init, String post, String... threads) {
        List<List<Actor>> parallel = new ArrayList<>();
        for (String t : threads) {
            parallel.add(actors(testClass, t));
        }
        return new ExecutionScenario(actors(testClass, init), parallel, actors(testClass, post), null);
    }

    private static List<Actor> actors(Class<?> testClass, String ops) {
        List<Actor> actors = new ArrayList<>();
        for (String op : ops.split(";")) {
            op = op.strip();
            if (op.isEmpty()) {
                continue;
            }
            int paren = op.indexOf('(');
            String name = paren < 0 ? op : op.substring(0, paren);
            List<Object> args = new ArrayList<>();
            if (paren >= 0) {
                String inner = op.substring(paren + 1, op.lastIndexOf(')')).strip();
                if (!inner.isEmpty()) {
                    Arrays.stream(inner.split(",")).map(String::strip).map(Integer::valueOf).forEach(args::add);
                }
            }
            actors.add(new Actor(method(testClass, name, args.size()), args));
        }
        return actors;
    }

    private static Method method(Class<?> testClass, String name, int arity) {
        for (Method m : testClass.getMethods()) {
            if (m.getName().equals(name) && m.getParameterCount() == arity) {
                return m;
            }
        }
        throw new IllegalArgumentException("no public operation " + name + " with " + arity + " parameters in " + testClass);
    }
}
