package dev.corobridge.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A test (class or method) that runs with corobridge's test support, {@link CorobridgeExtension}:
 * each test gets its own {@link dev.corobridge.pump.ManualPump ManualPump} with virtual time, which
 * is also its {@code Dispatchers.Main}, and fails if it leaves coroutines, tasks, timers or ring
 * files behind. See {@link CorobridgeExtension} for what exactly it does.
 *
 * <pre>{@code
 * @CorobridgeTest(pumpName = "board")
 * class BoardTest {
 *     @Test
 *     void showsTheNoteAfterASecond(ManualPump ui) {
 *         Board board = new Board(ui);
 *         board.addLater("hello", Duration.ofSeconds(1));
 *         ui.advanceTimeBy(Duration.ofSeconds(1));
 *         assertEquals(List.of("hello"), board.notes());
 *     }
 * }
 * }</pre>
 *
 * <p>On a method, its settings replace those of the class; on a {@code @Nested} class, those of
 * the enclosing class. {@code @ExtendWith(CorobridgeExtension.class)} alone has the defaults.
 */
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(CorobridgeExtension.class)
public @interface CorobridgeTest {

    /**
     * The name of the test's pump: what its thread checks, its {@code toString()}, hop traces and
     * failures show. Not blank.
     */
    String pumpName() default "ui";

    /**
     * Whether a {@link dev.corobridge.ring.RingPool RingPool} handed to the test runs on the
     * fallback transport (NIO event loops and blocking file threads) instead of io_uring, e.g. to
     * test the code path of machines and containers without io_uring.
     */
    boolean ringFallback() default false;
}
