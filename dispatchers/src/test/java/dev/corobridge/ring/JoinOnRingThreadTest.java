package dev.corobridge.ring;

import static dev.corobridge.ring.RingTestSupport.WAIT;
import static dev.corobridge.ring.RingTestSupport.await;
import static dev.corobridge.ring.RingTestSupport.pool;
import static dev.corobridge.ring.RingTestSupport.stop;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.bridge.Task;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A ring's thread is an event loop like the pump's: a blocking {@code join()} there would stall every
 * operation of that ring (and wait forever for one of its own), so it fails at once, naming the ring
 * and the fix, as on the pump. A join of something already done returns its value; an adopted
 * group's threads belong to their owner and are left as they are.
 */
class JoinOnRingThreadTest {

    /** What {@code body} (a join) did on {@code ring}'s thread: its value, or what it threw. */
    private static CompletableFuture<Object> outcomeOn(Ring ring, Callable<Object> body) {
        CompletableFuture<Object> result = new CompletableFuture<>();
        ring.execute(() -> {
            try {
                result.complete(body.call());
            } catch (Throwable e) {
                result.complete(e);
            }
        });
        return result;
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void joinOfUnfinishedWorkOnARingThreadFailsFastNamingTheRing(Transport t) throws Exception {
        RingPool pool = pool(t);
        CompletableFuture<String> never = new CompletableFuture<>();
        try {
            Ring ring = pool.getRings().get(1);
            CompletableFuture<Object> joined = outcomeOn(ring, () -> Task.from(never).join());
            Object outcome;
            try {
                outcome = joined.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            } catch (TimeoutException stuck) {
                never.complete("released"); // let the ring go before failing
                throw new AssertionError("join() blocked " + ring.getName() + "'s thread", stuck);
            }
            IllegalStateException e = assertInstanceOf(IllegalStateException.class, outcome);
            assertTrue(e.getMessage().contains("must never block"), e.getMessage());
            assertTrue(e.getMessage().contains(ring.getName()), e.getMessage());
            assertEquals("done", outcomeOn(ring, () -> Task.completed("done").join()).get(WAIT.toSeconds(), TimeUnit.SECONDS),
                    "a join of a finished task does not wait, so it is allowed");
        } finally {
            never.complete("released");
            stop(pool);
        }
    }

    @Test
    void aRingOpJoinedOnItsOwnRingFailsInsteadOfWaitingForItself(@TempDir Path dir) throws Exception {
        RingPool pool = pool(Transport.IO_URING);
        Path file = Files.writeString(dir.resolve("f"), "abc");
        RingFile f = await(pool.openAsync(file, java.nio.file.StandardOpenOption.READ));
        Ring ring = f.getRing();
        CompletableFuture<Object> joined = outcomeOn(ring, () -> f.readAsync(ByteBuffer.allocateDirect(16), 0).join());
        Object outcome;
        try {
            outcome = joined.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        } catch (TimeoutException stuck) {
            // The read can only complete on the thread that waits for it: that ring is lost, and
            // the pool is left as it is (its shutdown would wait for the ring too).
            throw new AssertionError("join() on " + ring.getName() + " waits for its own ring", stuck);
        }
        assertInstanceOf(IllegalStateException.class, outcome, "got " + outcome);
        assertEquals(3, await(f.readAsync(ByteBuffer.allocateDirect(16), 0)), "the ring goes on");
        await(f.closeAsync());
        stop(pool);
    }

    @Test
    void anAdoptedGroupsThreadsAreLeftToTheirOwner() throws Exception {
        MultiThreadIoEventLoopGroup shared = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try {
            RingPool pool = RingPool.adopt(shared, RingPoolConfig.builder().name("adopted-join").build());
            CompletableFuture<String> later = new CompletableFuture<>();
            CompletableFuture<Thread> joining = new CompletableFuture<>();
            CompletableFuture<Object> joined = outcomeOn(pool.getRings().get(0), () -> {
                joining.complete(Thread.currentThread());
                return Task.from(later).join();
            });
            Thread loop = joining.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            RingTestSupport.waitUntil(() -> loop.getState() == Thread.State.WAITING || joined.isDone(),
                    "the adopted loop's thread to wait in join()");
            later.complete("waited");
            assertEquals("waited", joined.get(WAIT.toSeconds(), TimeUnit.SECONDS),
                    "the owner of an adopted loop decides whether it may block");
            stop(pool);
        } finally {
            shared.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }
}
