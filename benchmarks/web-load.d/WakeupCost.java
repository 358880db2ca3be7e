import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

/**
 * What one wake-up costs on this machine, in the process's CPU time: two threads hand a turn back
 * and forth, each parking until the other unparks it, so every hand-over that finds the partner
 * asleep is a voluntary context switch (the kernel's count, from {@code /proc/self/task/* /status})
 * followed by a wake-up. Prints the process CPU time per voluntary switch, the median of five
 * rounds ({@code –} if the threads never slept). The work between switches is a volatile write and read: the figure is the price of the
 * sleep and the wake-up themselves (futex calls, the scheduler, on a VM the hypervisor's part).
 *
 * <p>Run by {@code benchmarks/web-load} before it starts the service (single-file source launch:
 * {@code java WakeupCost.java [hand-overs per round]}); not thread-safe, not a test.
 */
public final class WakeupCost {

    private static volatile int turn;
    /** Keeps the partner alive until its switches are counted (an ended thread's are gone from /proc). */
    private static volatile boolean counted;

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 50_000;
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        double[] perSwitch = new double[5];
        for (int round = 0; round < perSwitch.length; round++) {
            Thread main = Thread.currentThread();
            turn = 0;
            counted = false;
            Thread partner = new Thread(() -> {
                for (int i = 0; i < n; i++) {
                    while (turn != 1) {
                        LockSupport.park();
                    }
                    turn = 0;
                    LockSupport.unpark(main);
                }
                while (!counted) {
                    LockSupport.park();
                }
            });
            partner.start();
            long switches = voluntarySwitches();
            long cpu = os.getProcessCpuTime();
            for (int i = 0; i < n; i++) {
                turn = 1;
                LockSupport.unpark(partner);
                while (turn != 0) {
                    LockSupport.park();
                }
            }
            long cpuUsed = os.getProcessCpuTime() - cpu;
            long switched = voluntarySwitches() - switches;
            counted = true;
            LockSupport.unpark(partner);
            partner.join();
            perSwitch[round] = switched == 0 ? Double.NaN : cpuUsed / 1e3 / switched; // NaN: nothing slept
        }
        java.util.Arrays.sort(perSwitch); // NaN sorts last
        double median = perSwitch[perSwitch.length / 2];
        System.out.println(Double.isNaN(median) ? "–" : String.format(java.util.Locale.ROOT, "%.1f", median));
    }

    /** Voluntary context switches of this process's threads so far (threads that ended are not counted). */
    private static long voluntarySwitches() throws IOException {
        long total = 0;
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : tasks.toList()) {
                try {
                    for (String line : Files.readAllLines(task.resolve("status"))) {
                        if (line.startsWith("voluntary_ctxt_switches:")) {
                            total += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                        }
                    }
                } catch (IOException ended) {
                    // a thread that ended meanwhile
                }
            }
        }
        return total;
    }
}
