package dev.corobridge.pump;

/**
 * The time source of a pump's timers: {@link System#nanoTime()} for a real pump, a manual clock
 * for {@link ManualPump}. Values only make sense as differences, like {@code System.nanoTime()}.
 */
interface PumpClock {

    PumpClock SYSTEM = System::nanoTime;

    long nanoTime();
}
