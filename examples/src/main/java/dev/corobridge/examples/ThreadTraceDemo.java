package dev.corobridge.examples;

import dev.corobridge.bridge.HopTrace;
import dev.corobridge.pump.Affine;
import dev.corobridge.pump.MessagePump;
import dev.corobridge.pump.PumpMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Prints where each step of a small job ran: UI-affinity pump, then a background pool, then the
 * pump again, once from Java ({@code CompletableFuture} with the pump as its executor) and once
 * from Kotlin ({@code withContext} hops), like a thread-id log.
 */
public final class ThreadTraceDemo {

    private ThreadTraceDemo() {
    }

    public static void main(String[] args) throws Exception {
        MessagePump ui = MessagePump.start("ui");
        ExecutorService cpu = Executors.newFixedThreadPool(2, Thread.ofPlatform().name("cpu-", 1).factory());
        try {
            Affine<List<String>> board = Affine.of(ui, new ArrayList<>()); // owned by the pump

            HopTrace java = new HopTrace();
            String rendered = CompletableFuture
                    .supplyAsync(() -> {
                        java.record("ui", "read the board");
                        return String.join(",", board.get());
                    }, ui)
                    .thenApplyAsync(notes -> {
                        java.record("cpu", "render in the background");
                        return "[" + notes + "] rendered";
                    }, cpu)
                    .thenApplyAsync(r -> {
                        java.record("ui", "apply on the pump");
                        board.get().add(r); // allowed: we are on the pump again
                        return r;
                    }, ui)
                    .get(30, TimeUnit.SECONDS);
            System.out.println("Java  (CompletableFuture, pump as Executor) -> " + rendered);
            System.out.print(java);

            HopTrace kotlin = KotlinThreadTrace.run(ui);
            System.out.println("Kotlin (withContext hops)");
            System.out.print(kotlin);

            try {
                board.get();
            } catch (IllegalStateException offPump) {
                System.out.println("Touching the board from '" + Thread.currentThread().getName() + "' fails:");
                System.out.println("  " + offPump.getMessage());
            }
            PumpMetrics m = ui.metrics();
            System.out.printf("pump '%s': %d dispatches, %d wake-ups (%.2f per dispatch), %d timers fired%n",
                    m.pumpName(), m.dispatches(), m.wakeups(), m.wakeupsPerDispatch(), m.timersFired());
        } finally {
            cpu.shutdown();
            System.out.println(ui.shutdown().get(30, TimeUnit.SECONDS));
        }
    }
}
