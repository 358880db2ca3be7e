package dev.corobridge.test;

import static dev.corobridge.test.Samples.failureOf;
import static dev.corobridge.test.Samples.succeeded;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.pump.ManualPump;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.platform.testkit.engine.EngineExecutionResults;

/**
 * What {@link CorobridgeExtension} hands a test (a {@link ManualPump} on the test's thread, named
 * by {@link CorobridgeTest}, one per test, in every place JUnit resolves parameters) and that it
 * shuts the pump down afterwards. Each check runs sample test classes through the Jupiter engine.
 */
class CorobridgeExtensionTest {

    /** Pumps the samples were given, in order, to check after the run. */
    static final List<ManualPump> SEEN = new CopyOnWriteArrayList<>();

    @BeforeEach
    void clear() {
        SEEN.clear();
    }

    @Sample
    @CorobridgeTest(pumpName = "board")
    static class PumpSample {
        private ManualPump fromBeforeEach;

        @BeforeEach
        void setUp(ManualPump ui) {
            fromBeforeEach = ui;
        }

        @Test
        void aManualPumpOnTheTestThreadWithVirtualTime(ManualPump ui) {
            SEEN.add(ui);
            assertEquals("board", ui.getName());
            assertTrue(ui.isCurrentThread(), "the test thread is the pump thread");
            assertSame(fromBeforeEach, ui, "@BeforeEach and the test share the test's pump");
            AtomicBoolean shown = new AtomicBoolean();
            ui.schedule(() -> shown.set(true), Duration.ofSeconds(5));
            ui.advanceTimeBy(Duration.ofSeconds(4));
            assertFalse(shown.get());
            ui.advanceTimeBy(Duration.ofSeconds(1));
            assertTrue(shown.get());
            assertEquals(Duration.ofSeconds(5).toNanos(), ui.getCurrentTimeNanos());
        }

        @Test
        @CorobridgeTest(pumpName = "method")
        void aMethodsSettingsWin(ManualPump ui) {
            SEEN.add(ui);
            assertEquals("method", ui.getName());
        }
    }

    @Test
    void eachTestGetsAFreshNamedPumpOnItsThreadThatIsShutDownAfterwards() {
        EngineExecutionResults results = Samples.run(PumpSample.class);
        assertThat(succeeded(results)).containsExactly("aManualPumpOnTheTestThreadWithVirtualTime", "aMethodsSettingsWin");
        assertThat(SEEN).hasSize(2).doesNotHaveDuplicates();
        assertThat(SEEN).allSatisfy(p -> assertTrue(p.isTerminated(), p + " was shut down after its test"));
    }

    @Sample
    @CorobridgeTest(pumpName = "ctor")
    static class ConstructorSample {
        private final ManualPump fromConstructor;

        ConstructorSample(ManualPump ui) {
            this.fromConstructor = ui;
        }

        @Test
        void theConstructorGetsTheTestsPump(ManualPump ui) {
            assertSame(fromConstructor, ui);
            assertTrue(ui.isCurrentThread());
        }

        @Test
        void andTheNextTestANewOne(ManualPump ui) {
            SEEN.add(ui);
            assertSame(fromConstructor, ui);
        }
    }

    @Test
    void aTestClassConstructorMayTakeThePump() {
        assertThat(succeeded(Samples.run(ConstructorSample.class)))
                .containsExactly("andTheNextTestANewOne", "theConstructorGetsTheTestsPump");
    }

    @Sample
    @ExtendWith(CorobridgeExtension.class)
    static class DefaultsSample {
        @Test
        void namedUi(ManualPump ui) {
            assertEquals("ui", ui.getName());
        }
    }

    @Sample
    @CorobridgeTest(pumpName = "outer")
    static class EnclosingSample {
        @Nested
        class Inner {
            @Test
            void namedByTheEnclosingClass(ManualPump ui) {
                assertEquals("outer", ui.getName());
            }
        }
    }

    @Test
    void withoutTheAnnotationTheDefaultsApplyAndANestedClassTakesItsEnclosingClasss() {
        assertThat(succeeded(Samples.run(DefaultsSample.class, EnclosingSample.class)))
                .containsExactly("namedByTheEnclosingClass", "namedUi");
    }

    @Sample
    @CorobridgeTest
    static class BeforeAllSample {
        @BeforeAll
        static void setUp(ManualPump ui) {
            throw new AssertionError("never resolved");
        }

        @Test
        void test() {
        }
    }

    @Sample
    @CorobridgeTest
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    static class PerClassConstructorSample {
        PerClassConstructorSample(ManualPump ui) {
        }

        @Test
        void test() {
        }
    }

    @Test
    void aPumpForAllTestsOfAClassIsRefusedNamingWhereToAskForIt() {
        EngineExecutionResults results = Samples.run(BeforeAllSample.class, PerClassConstructorSample.class);
        List<Throwable> failures = results.containerEvents().failed().stream()
                .map(e -> e.getRequiredPayload(org.junit.platform.engine.TestExecutionResult.class).getThrowable().orElseThrow())
                .toList();
        assertThat(failures).hasSize(2).allSatisfy(f -> assertThat(f)
                .isInstanceOf(ParameterResolutionException.class)
                .hasMessageContaining("CorobridgeExtension gives each test its own ManualPump")
                .hasMessageContaining("@BeforeEach"));
    }

    @Sample
    @CorobridgeTest(pumpName = " ")
    static class BlankNameSample {
        @Test
        void test(ManualPump ui) {
        }
    }

    @Test
    void aBlankPumpNameFailsTheTestSayingSo() {
        assertThat(failureOf(Samples.run(BlankNameSample.class), "test"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("@CorobridgeTest(pumpName) must not be blank");
    }
}
