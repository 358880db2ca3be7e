package dev.corobridge.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * How busy the rest of the machine was while we measured: CPU ticks of every process (from
 * {@code /proc/stat}) minus this JVM's own (from {@code /proc/self/stat}). A benchmark on a shared
 * 2-core machine is only as good as this figure is small. Linux only.
 */
record MachineLoad(long machineTicks, long busyTicks, long stealTicks, long selfTicks) {

    static MachineLoad now() {
        try {
            List<String> stat = Files.readAllLines(Path.of("/proc/stat"));
            String cpu = stat.get(0); // "cpu  user nice system idle iowait irq softirq steal ..."
            String[] f = cpu.trim().split("\\s+");
            long user = Long.parseLong(f[1]);
            long nice = Long.parseLong(f[2]);
            long system = Long.parseLong(f[3]);
            long idle = Long.parseLong(f[4]);
            long iowait = Long.parseLong(f[5]);
            long irq = Long.parseLong(f[6]);
            long softirq = Long.parseLong(f[7]);
            long steal = f.length > 8 ? Long.parseLong(f[8]) : 0;
            long busy = user + nice + system + irq + softirq;
            String self = Files.readString(Path.of("/proc/self/stat"));
            // Fields after the parenthesised command name, which may contain spaces.
            String[] s = self.substring(self.lastIndexOf(')') + 2).trim().split("\\s+");
            long selfTicks = Long.parseLong(s[11]) + Long.parseLong(s[12]); // utime, stime (fields 14, 15)
            return new MachineLoad(busy + idle + iowait + steal, busy, steal, selfTicks);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    MachineLoad minus(MachineLoad earlier) {
        return new MachineLoad(machineTicks - earlier.machineTicks, busyTicks - earlier.busyTicks,
                stealTicks - earlier.stealTicks, selfTicks - earlier.selfTicks);
    }

    MachineLoad plus(MachineLoad other) {
        return new MachineLoad(machineTicks + other.machineTicks, busyTicks + other.busyTicks,
                stealTicks + other.stealTicks, selfTicks + other.selfTicks);
    }

    /** CPU that other processes used, in % of one core (200 = both cores of a 2-core machine). */
    double othersPctOfCore() {
        return pctOfCore(Math.max(0, busyTicks - selfTicks));
    }

    /** CPU the hypervisor stole from this VM, in % of one core. */
    double stealPctOfCore() {
        return pctOfCore(stealTicks);
    }

    /** Online CPUs as /proc/stat counts them (the JVM's own count may be capped by a container). */
    private static final int CPUS = countCpus();

    private static int countCpus() {
        try {
            int n = 0;
            for (String line : Files.readAllLines(Path.of("/proc/stat"))) {
                if (line.length() > 3 && line.startsWith("cpu") && Character.isDigit(line.charAt(3))) {
                    n++;
                }
            }
            return Math.max(1, n);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private double pctOfCore(long ticks) {
        if (machineTicks == 0) {
            return 0;
        }
        return 100.0 * ticks * CPUS / machineTicks;
    }
}
