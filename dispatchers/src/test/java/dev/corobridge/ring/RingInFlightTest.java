package dev.corobridge.ring;

import static dev.corobridge.ring.RingTestSupport.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link Ring#inFlight()} counts operations submitted and not yet completed: an operation whose
 * outcome is visible is no longer counted, as seen by anyone who observed that outcome — even a
 * callback running on the ring's own thread at the moment the operation settles. Pool shutdown
 * relies on it: it awaits the files' closes, then reports operations "still in flight"; counting the
 * just-settled close made it report a phantom operation (RingPoolAdoptTest failed on a loaded CI).
 */
class RingInFlightTest {

    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(Transport.class)
    void anOperationIsNoLongerInFlightWhenItsOutcomeIsSeen(Transport transport) throws Exception {
        RingPool pool = RingTestSupport.pool(transport);
        try {
            Ring ring = pool.getRings().get(0);
            Path p = dir.resolve("f");
            Files.write(p, new byte[64]);
            RingFile f = await(ring.openAsync(p, StandardOpenOption.READ));
            Thread me = Thread.currentThread();
            AtomicInteger settledElsewhere = new AtomicInteger();
            ConcurrentLinkedQueue<String> seen = new ConcurrentLinkedQueue<>();
            ByteBuffer buf = ByteBuffer.allocate(64);
            for (int i = 0; i < 2_000; i++) {
                buf.clear();
                RingOp<Integer> op = f.readAsync(buf, 0);
                int n = i;
                java.util.concurrent.CountDownLatch looked = new java.util.concurrent.CountDownLatch(1);
                // Runs inline where the operation settles (usually the ring's or a file worker's thread).
                op.onComplete(o -> {
                    if (Thread.currentThread() != me) {
                        settledElsewhere.incrementAndGet();
                        int left = ring.getInFlight();
                        if (left != 0 && seen.size() < 5) {
                            seen.add("read " + n + " settled, in flight " + left);
                        }
                    }
                    looked.countDown();
                });
                await(op);
                // The next read must not be counted yet when this one's callback looks.
                assertTrue(looked.await(30, java.util.concurrent.TimeUnit.SECONDS));
            }
            await(f.closeAsync());
            assertTrue(settledElsewhere.get() > 0, "no read settled while its callback was registered");
            assertEquals(List.of(), List.copyOf(seen), "operations still counted in flight when they settled");
        } finally {
            RingTestSupport.stop(pool);
        }
    }
}
