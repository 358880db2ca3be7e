package dev.corobridge.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.sideeffects.ChildJvm;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Starting a pool with its own io_uring loops turns Netty's multishot POLL_ADD off (see
 * {@link NettyUringSettings}), says so once, and leaves an application's own choice alone. Each
 * case in a JVM of its own: the property is JVM-wide and Netty reads it once.
 */
class NettySettingsAtPoolStartTest {

    private static final String ANNOUNCEMENT = "corobridge sets -D" + NettyUringSettings.POLL_ADD_MULTISHOT + "=false";

    @Test
    void unsetThePoolSetsItBeforeNettyReadsItAndLogsOnce() throws Exception {
        ChildJvm.Result r = ChildJvm.run(PoolStartNettySettingsProbe.class, List.of(), List.of());
        assertEquals(0, r.exitCode(), r.err());
        assertEquals("before=null", r.out().get(0));
        assertEquals("after=false", r.out().get(1), r.out() + r.err());
        if (r.out().contains("transport=IO_URING")) {
            assertTrue(r.out().contains("multishot=false"), "Netty read the setting: " + r.out());
        }
        assertEquals(1, r.err().split(ANNOUNCEMENT, -1).length - 1, "announced once: " + r.err());
    }

    @Test
    void anApplicationsOwnValueIsKept() throws Exception {
        ChildJvm.Result r = ChildJvm.run(PoolStartNettySettingsProbe.class,
                List.of("-D" + NettyUringSettings.POLL_ADD_MULTISHOT + "=true"), List.of());
        assertEquals(0, r.exitCode(), r.err());
        assertEquals("after=true", r.out().get(1), r.out() + r.err());
        assertFalse(r.err().contains(ANNOUNCEMENT), r.err());
        if (r.out().contains("transport=IO_URING")) {
            assertTrue(r.out().contains("multishot=true"), r.out().toString());
            assertTrue(r.err().contains("multishot POLL_ADD is enabled"), "the pool warns: " + r.err());
        }
    }
}
