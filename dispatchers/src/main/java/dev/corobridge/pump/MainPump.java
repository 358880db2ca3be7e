package dev.corobridge.pump;

import java.util.concurrent.atomic.AtomicReference;

/**
 * Opt-in: makes a pump back Kotlin's {@code Dispatchers.Main}.
 *
 * <p>Two steps, both explicit: put the {@code corobridge-main} artifact on the class path (it only
 * registers corobridge's {@code MainDispatcherFactory}, as kotlinx-coroutines-swing registers
 * Swing's; corobridge-dispatchers alone leaves {@code Dispatchers.Main} alone), then
 * {@link #install(MessagePump) install} a pump. Even then it is never active by accident:
 * <ul>
 *   <li>Its priority is below Swing's and JavaFX's factories unless the system property
 *       {@value #MAIN_PROPERTY}{@code =pump} is set, so a UI toolkit on the class path keeps its Main.</li>
 *   <li>Until a pump is {@link #install(MessagePump) installed}, using {@code Dispatchers.Main}
 *       throws an {@link IllegalStateException} that names this class.</li>
 *   <li>{@code Dispatchers.setMain(...)} from kotlinx-coroutines-test still wins in tests.</li>
 * </ul>
 * The main dispatcher delegates to the installed pump at every call, so a pump may be installed
 * after {@code Dispatchers.Main} was first touched, and replaced later (e.g. between tests).
 *
 * <p>It behaves as kotlinx's own Main dispatchers (Swing's, JavaFX's) do: it prints as
 * {@code Dispatchers.Main} and {@code Dispatchers.Main.immediate}; {@code Dispatchers.Main} always
 * dispatches, its {@code immediate} view runs inline on the pump thread, and both share the pump's
 * queue; a {@code delay} resumes inside the pump's timer, costing no second pump task. A delay whose
 * pump was replaced meanwhile resumes through {@code Dispatchers.Main}, on the pump installed now,
 * when it is due (if the replaced pump shuts down first, the rest of the delay runs on the timers of
 * the pump installed then).
 */
public final class MainPump {

    /** System property that lifts corobridge's Main factory above UI toolkits' ({@code =pump}). */
    public static final String MAIN_PROPERTY = "corobridge.main";

    private static final AtomicReference<MessagePump> INSTALLED = new AtomicReference<>();

    private MainPump() {
    }

    /** Makes {@code pump} the target of {@code Dispatchers.Main}; returns the previous one or {@code null}. */
    public static MessagePump install(MessagePump pump) {
        return INSTALLED.getAndSet(java.util.Objects.requireNonNull(pump, "pump"));
    }

    /** Removes {@code pump} if it is installed; returns whether it was. */
    public static boolean uninstall(MessagePump pump) {
        return INSTALLED.compareAndSet(pump, null);
    }

    /** The installed pump, or {@code null}. */
    public static MessagePump current() {
        return INSTALLED.get();
    }
}
