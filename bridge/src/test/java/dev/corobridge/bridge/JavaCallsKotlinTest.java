package dev.corobridge.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import kotlinx.coroutines.Dispatchers;
import kotlinx.coroutines.ExecutorCoroutineDispatcher;
import kotlinx.coroutines.ExecutorsKt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Java calling Kotlin suspend functions through Task: value, failure, cancellation. */
class JavaCallsKotlinTest {

    private final ExecutorService home = Executors.newSingleThreadExecutor(r -> new Thread(r, "java-home"));
    private final ExecutorCoroutineDispatcher homeDispatcher = ExecutorsKt.from(home);

    @AfterEach
    void tearDown() {
        homeDispatcher.close();
    }

    @Test
    void valueFailureAndCancellation() throws Exception {
        Task<String> user = Task.startSuspend(homeDispatcher, cont -> KotlinHelpers.INSTANCE.loadUser("42", cont));
        String v = user.join(Duration.ofSeconds(30));
        assertTrue(v.startsWith("user-42@java-home"), v);

        Task<String> failing = Task.startSuspend(homeDispatcher, cont -> KotlinHelpers.INSTANCE.failAfterSuspending("kotlin said no", cont));
        assertEquals("kotlin said no", assertThrows(IllegalStateException.class, () -> failing.join(Duration.ofSeconds(30))).getMessage());

        CountDownLatch started = new CountDownLatch(1);
        Task<String> forever = Task.startSuspend(Dispatchers.getDefault(), cont -> KotlinHelpers.INSTANCE.suspendForever(started, cont));
        started.await();
        forever.cancel();
        assertThrows(java.util.concurrent.CancellationException.class, () -> forever.join(Duration.ofSeconds(30)));
    }
}
