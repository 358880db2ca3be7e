package dev.corobridge.it;

import com.fasterxml.jackson.databind.JsonNode;

import java.time.Duration;
import java.util.Map;

/**
 * Runs the HTTP scenarios against a running service and prints one line per scenario and a
 * closing {@code N passed, N failed} line; exits 1 if any failed. Used by the test-client
 * container (by service name) and from the host (by published port):
 *
 * <pre>
 * java -jar corobridge-it-client.jar http://demo:8080 [--wait 120] [--expect-transport io_uring|!io_uring]
 *      [--only-live]
 * </pre>
 *
 * {@code --wait} waits up to that many seconds for readiness first; {@code --expect-transport}
 * checks what {@code GET /api/live} reports ({@code !io_uring}: anything else, with a reason);
 * {@code --only-live} runs only the readiness and transport checks.
 */
public final class ClientMain {

    public static void main(String[] args) {
        if (args.length < 1) {
            System.err.println("usage: ClientMain BASE_URL [--wait SECONDS] [--expect-transport T|!T] [--only-live]");
            System.exit(2);
        }
        String url = args[0];
        long waitSeconds = 0;
        String expectTransport = null;
        boolean onlyLive = false;
        for (int i = 1; i < args.length; i++) {
            switch (args[i]) {
                case "--wait" -> waitSeconds = Long.parseLong(args[++i]);
                case "--expect-transport" -> expectTransport = args[++i];
                case "--only-live" -> onlyLive = true;
                default -> {
                    System.err.println("unknown argument: " + args[i]);
                    System.exit(2);
                }
            }
        }
        Http http = new Http(url, Duration.ofSeconds(30));
        long deadline = System.nanoTime() + waitSeconds * 1_000_000_000L;
        while (!Scenarios.ready(http) && System.nanoTime() < deadline) {
            sleep(500);
        }
        int passed = 0;
        int failed = 0;
        Scenarios s = new Scenarios(http);
        Map<String, Runnable> all = s.all();
        if (onlyLive) {
            all = new java.util.LinkedHashMap<>();
            all.put("live metrics and transport", s::liveReport);
        }
        String expected = expectTransport;
        all.put("transport " + (expected == null ? "(reported)" : "is " + expected), () -> {
            JsonNode live = s.liveReport();
            String t = live.path("transport").asText();
            System.out.println("   " + url + " reports transport=" + t + " fallbackReason=" + live.path("fallbackReason"));
            if (expected != null) {
                boolean negate = expected.startsWith("!");
                String name = negate ? expected.substring(1) : expected;
                Check.that(negate != t.equalsIgnoreCase(name), "transport %s, expected %s", t, expected);
            }
        });
        for (var e : all.entrySet()) {
            long t0 = System.nanoTime();
            try {
                if (!Scenarios.ready(http)) {
                    throw new AssertionError(url + " is not ready");
                }
                e.getValue().run();
                passed++;
                System.out.printf("PASS %-60s %6d ms%n", e.getKey(), (System.nanoTime() - t0) / 1_000_000);
            } catch (Throwable t) {
                failed++;
                System.out.printf("FAIL %-60s %6d ms%n     %s%n", e.getKey(), (System.nanoTime() - t0) / 1_000_000,
                        String.valueOf(t.getMessage()).replace("\n", "\n     "));
            }
        }
        System.out.println("client " + url + ":");
        System.out.println(passed + " passed, " + failed + " failed");
        System.exit(failed == 0 ? 0 : 1);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
