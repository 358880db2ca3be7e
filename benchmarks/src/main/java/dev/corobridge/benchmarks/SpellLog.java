package dev.corobridge.benchmarks;

import java.util.Locale;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * Tells which spell of the machine's core-to-core transfer time ({@link CoreTransferProbe}) each
 * measured iteration of a hand-over benchmark ran in: probes before and after the iteration,
 * times the iteration's own operations, and prints one line per measured iteration,
 * {@code SPELL benchmark=<name> params=<k=v,...> before=<ns> after=<ns> spell=<near|far|mixed> nsPerOp=<ns>},
 * so that rows of one run are compared within one spell ({@code grep ^SPELL}). A benchmark method
 * takes this state and calls {@link #invoked(int)} with the operations of each invocation.
 *
 * <p>Thread-confined (one per benchmark thread); the probes run outside the measured time.
 */
@State(Scope.Thread)
public class SpellLog {

    private double before;
    private long operations;
    private long start;

    @Setup(Level.Iteration)
    public void probeBefore() throws InterruptedException {
        before = CoreTransferProbe.roundTripNanos();
        operations = 0;
        start = System.nanoTime();
    }

    /** One invocation of the benchmark method did {@code ops} operations. */
    public void invoked(int ops) {
        operations += ops;
    }

    @TearDown(Level.Iteration)
    public void probeAfter(BenchmarkParams benchmark, IterationParams iteration) throws InterruptedException {
        long elapsed = System.nanoTime() - start;
        if (iteration.getType() != IterationType.MEASUREMENT || operations == 0) {
            return;
        }
        double after = CoreTransferProbe.roundTripNanos();
        StringBuilder params = new StringBuilder();
        for (String key : benchmark.getParamsKeys()) {
            params.append(params.length() == 0 ? "" : ",").append(key).append('=').append(benchmark.getParam(key));
        }
        String name = benchmark.getBenchmark();
        System.out.printf(Locale.ROOT, "%nSPELL benchmark=%s params=%s before=%.0f after=%.0f spell=%s nsPerOp=%.1f%n",
                name.substring(name.lastIndexOf('.', name.lastIndexOf('.') - 1) + 1), params.length() == 0 ? "-" : params,
                before, after, CoreTransferProbe.spell(before, after), elapsed / (double) operations);
    }
}
