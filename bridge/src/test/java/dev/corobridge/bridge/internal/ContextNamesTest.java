package dev.corobridge.bridge.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;

/**
 * The name of the context a plain {@link Executor} stands for, as hop traces and the
 * {@code corobridge.context} tag of the task metrics show it, is the same for every run and every
 * instance made at one place: a lambda was named by its hidden class ({@code
 * ContextNamesTest$$Lambda/0x000000005f4fa5d0}: an address that changes with every run, a new tag
 * value each time), an anonymous class by its identity ({@code ContextNamesTest$1@6d06d69c}).
 */
class ContextNamesTest {

    @Test
    void aLambdaIsNamedAfterTheClassItIsWrittenIn() {
        Executor inline = Runnable::run;
        Executor other = command -> command.run();
        assertEquals("ContextNamesTest lambda", ContextNames.contextName(inline));
        assertEquals("ContextNamesTest lambda", ContextNames.contextName(other));
    }

    @Test
    void anAnonymousClassIsNamedByItsClassUnlessItNamesItself() {
        Executor anonymous = new Executor() {
            @Override
            public void execute(Runnable command) {
                command.run();
            }
        };
        Executor named = new Executor() {
            @Override
            public void execute(Runnable command) {
                command.run();
            }

            @Override
            public String toString() {
                return "the ui";
            }
        };
        assertEquals("ContextNamesTest$1", ContextNames.contextName(anonymous));
        assertEquals("the ui", ContextNames.contextName(named));
    }

    @Test
    void aNamedClassIsNamedByItsSimpleName() {
        assertEquals("Inline", ContextNames.contextName(new Inline()));
    }

    private static final class Inline implements Executor {
        @Override
        public void execute(Runnable command) {
            command.run();
        }
    }
}
