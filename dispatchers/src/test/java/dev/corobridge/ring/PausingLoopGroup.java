package dev.corobridge.ring;

import io.netty.channel.IoEventLoop;
import io.netty.channel.IoEventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.uring.IoUringIoHandler;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One io_uring event loop, seen through a proxy that can hold a chosen thread inside
 * {@code execute} — after the caller decided to hand work to the loop, before the work is queued —
 * until the test lets it go. For races between "checked on the caller's thread" and "done on the
 * loop" that would otherwise need luck: adopt it with {@link RingPool#adopt}.
 */
final class PausingLoopGroup implements AutoCloseable {

    private final MultiThreadIoEventLoopGroup real = new MultiThreadIoEventLoopGroup(1, IoUringIoHandler.newFactory());
    private final IoEventLoop realLoop = real.next();
    private final IoEventLoopGroup group;
    private volatile Thread armed;
    private final CountDownLatch held = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);

    PausingLoopGroup() {
        ClassLoader cl = getClass().getClassLoader();
        IoEventLoop[] self = new IoEventLoop[1];
        IoEventLoopGroup[] parent = new IoEventLoopGroup[1];
        self[0] = (IoEventLoop) Proxy.newProxyInstance(cl, new Class<?>[] {IoEventLoop.class}, handler(realLoop, self, parent));
        parent[0] = (IoEventLoopGroup) Proxy.newProxyInstance(cl, new Class<?>[] {IoEventLoopGroup.class}, handler(real, self, parent));
        this.group = parent[0];
    }

    private InvocationHandler handler(Object target, IoEventLoop[] self, IoEventLoopGroup[] parent) {
        return (proxy, m, args) -> {
            switch (m.getName()) {
                case "next" -> {
                    return self[0];
                }
                case "parent" -> {
                    return parent[0];
                }
                case "iterator" -> {
                    return List.<io.netty.util.concurrent.EventExecutor>of(self[0]).iterator();
                }
                case "equals" -> {
                    return proxy == args[0];
                }
                case "hashCode" -> {
                    return System.identityHashCode(proxy);
                }
                case "execute" -> {
                    if (Thread.currentThread() == armed) {
                        armed = null;
                        held.countDown();
                        if (!released.await(RingTestSupport.WAIT.toSeconds(), TimeUnit.SECONDS)) {
                            throw new AssertionError("the held thread was never released");
                        }
                    }
                }
                default -> {
                }
            }
            return invoke(target, m, args);
        };
    }

    private static Object invoke(Object target, Method m, Object[] args) throws Throwable {
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /** The group to adopt. */
    IoEventLoopGroup group() {
        return group;
    }

    /** The next {@code execute} called on {@code thread} waits inside the call until {@link #release()}. */
    void holdNextExecuteOn(Thread thread) {
        armed = thread;
    }

    /** Waits until the armed thread is held inside {@code execute}. */
    void awaitHeld() throws InterruptedException {
        if (!held.await(RingTestSupport.WAIT.toSeconds(), TimeUnit.SECONDS)) {
            throw new AssertionError("the armed thread never called execute");
        }
    }

    /** Lets the held thread queue its work. */
    void release() {
        released.countDown();
    }

    @Override
    public void close() throws InterruptedException {
        release();
        real.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }
}
