package dev.corobridge.ring;

import io.netty.channel.uring.IoUring;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Netty io_uring settings the ring sockets depend on, applied by {@link RingPool#start} before
 * Netty's {@link IoUring} class reads them (it reads its system properties once, when it is
 * initialised). Never on class loading: only starting a pool with its own io_uring loops applies
 * them, only where the application did not choose itself, and it says so in one INFO line.
 *
 * <p><b>Multishot POLL_ADD is turned off</b> ({@code io.netty.iouring.pollAddMultishotEnabled=false},
 * unless the application set that property itself; it is JVM-wide, so other Netty io_uring users
 * initialised later get it too). Why: with auto-read off, Netty arms one multishot
 * POLLIN for a read and keeps it armed between reads. A multishot poll reports <i>edges</i>. When the
 * peer's data and its RST (or FIN) arrive together while Netty's {@code recv} is in flight, the edge
 * of the reset is consumed by that read; the read returns the data, and Netty ends its read loop
 * because the receive queue is empty (it does not look at the pending socket error or end; its
 * one-shot POLLRDHUP has fired and is not re-armed). The next {@code read()} then finds the multishot
 * poll still armed, arms nothing, and no further edge ever comes: the read waits forever (issue 4's
 * "peer reset race"; reproduced about once in 50 tries by {@code RingSocketResetTest}'s racing tests
 * with the multishot poll on, never in thousands with it off). A one-shot POLL_ADD is armed afresh for every
 * read and checks readiness when armed, so a pending reset or end is reported at once. The cost is one
 * POLL_ADD per read that has to wait, as with epoll's one-shot mode.
 *
 * <p>If Netty's {@code IoUring} was initialised before corobridge (e.g. Reactor Netty started first
 * and the pool adopts its loops) the setting comes too late; {@link #warnIfMultishotPoll} then logs a
 * warning naming the property to set on the command line.
 */
final class NettyUringSettings {

    static final String POLL_ADD_MULTISHOT = "io.netty.iouring.pollAddMultishotEnabled";

    private static final System.Logger LOG = System.getLogger(RingPool.class.getName());
    private static final AtomicBoolean WARNED = new AtomicBoolean();
    private static boolean announced; // guarded by the class

    private NettyUringSettings() {
    }

    /**
     * Turns Netty's multishot POLL_ADD off unless the application set {@value #POLL_ADD_MULTISHOT}
     * itself; logs once (INFO) when it does. Call before touching {@link IoUring}. Idempotent.
     */
    static synchronized void apply() {
        if (System.getProperty(POLL_ADD_MULTISHOT) == null) {
            System.setProperty(POLL_ADD_MULTISHOT, "false");
            if (!announced) {
                announced = true;
                LOG.log(System.Logger.Level.INFO, "corobridge sets -D" + POLL_ADD_MULTISHOT + "=false (JVM-wide) before"
                        + " Netty's io_uring transport initialises: with multishot POLL_ADD a peer's reset or end that"
                        + " arrives during a ring socket read can be missed. Set the property yourself to decide otherwise.");
            }
        }
    }

    /** Logs once if Netty's multishot POLL_ADD is on anyway (see the class comment). */
    static void warnIfMultishotPoll(System.Logger log) {
        if (IoUring.isAvailable() && IoUring.isPollAddMultishotEnabled() && WARNED.compareAndSet(false, true)) {
            log.log(System.Logger.Level.WARNING, "Netty's io_uring multishot POLL_ADD is enabled (Netty was initialised"
                    + " before corobridge, or " + POLL_ADD_MULTISHOT + "=true): a peer's reset or end that arrives"
                    + " during a ring socket read can be missed by the next read. Start the JVM with -D"
                    + POLL_ADD_MULTISHOT + "=false.");
        }
    }
}
