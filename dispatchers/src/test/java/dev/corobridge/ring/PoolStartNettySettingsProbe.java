package dev.corobridge.ring;

import io.netty.channel.uring.IoUring;

/**
 * Run by {@link NettySettingsAtPoolStartTest} in a JVM of its own: prints the multishot POLL_ADD
 * property before and after starting a pool, the pool's transport and, where io_uring works,
 * whether Netty's multishot POLL_ADD is on.
 */
public final class PoolStartNettySettingsProbe {

    private PoolStartNettySettingsProbe() {
    }

    public static void main(String[] args) throws Exception {
        System.out.println("before=" + System.getProperty(NettyUringSettings.POLL_ADD_MULTISHOT));
        try (RingPool pool = RingPool.start(RingPoolConfig.builder().name("probe").rings(1).forceFallback(false).build())) {
            System.out.println("after=" + System.getProperty(NettyUringSettings.POLL_ADD_MULTISHOT));
            System.out.println("transport=" + pool.getMetrics().transport());
            if (pool.getMetrics().transport() == Transport.IO_URING) {
                System.out.println("multishot=" + IoUring.isPollAddMultishotEnabled());
            }
        }
    }
}
