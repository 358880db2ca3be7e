package dev.corobridge.ring;

import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.socket.ChannelOutputShutdownException;
import io.netty.channel.unix.Errors;
import java.net.BindException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.NoRouteToHostException;
import java.net.PortUnreachableException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.NotYetConnectedException;

/**
 * The errno a transport failure stands for, taken from the failure itself — never from its message
 * text, which is free-form and may be localised.
 *
 * <p>In order: the errno Netty's native transport recorded ({@link Errors.NativeIoException#expectedErr()});
 * else the exception's type, where the JDK or Netty uses a type for one errno or one kind of
 * failure ({@code ConnectException}: refused, {@code NoRouteToHostException}: unreachable, a
 * {@code ClosedChannelException}: the channel is closed, ...); else 0, and the caller decides what an
 * unidentified failure means where it happened (see {@link RingConnection}). Where a JDK type stands
 * for several errnos ({@code BindException}), the state of the system decides, not the message.
 *
 * <p><b>Thread-safety.</b> Stateless.
 */
final class NativeErrors {

    private NativeErrors() {
    }

    /** The positive errno {@code failure} (or an exception in its cause chain) stands for, or 0. */
    static int errnoOf(Throwable failure) {
        int seen = 0;
        for (Throwable t = failure; t != null && seen++ < 16; t = t.getCause()) {
            int errno = errnoOfOne(t);
            if (errno != 0) {
                return errno;
            }
        }
        return 0;
    }

    /** {@link #errnoOf}, for a failure to bind {@code address}. */
    static int bindErrnoOf(Throwable failure, InetAddress address) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof Errors.NativeIoException n && n.expectedErr() != 0) {
                return Math.abs(n.expectedErr());
            }
            if (t instanceof BindException) {
                // The JDK reports EADDRINUSE, EADDRNOTAVAIL and EACCES alike: tell the first two
                // apart by whether the address belongs to this host at all.
                return isLocal(address) ? Errno.EADDRINUSE : Errno.EADDRNOTAVAIL;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return errnoOf(failure);
    }

    private static int errnoOfOne(Throwable t) {
        if (t instanceof Errors.NativeIoException n) {
            return Math.abs(n.expectedErr());
        }
        if (t instanceof ConnectTimeoutException || t instanceof SocketTimeoutException) {
            return Errno.ETIMEDOUT; // Netty's connect timeout; a socket timeout
        }
        if (t instanceof NoRouteToHostException) {
            return Errno.EHOSTUNREACH; // Netty and the JDK use it for EHOSTUNREACH and ENETUNREACH
        }
        if (t instanceof PortUnreachableException || t instanceof ConnectException) {
            return Errno.ECONNREFUSED;
        }
        if (t instanceof BindException) {
            return Errno.EADDRINUSE;
        }
        if (t instanceof ClosedChannelException) {
            return Errno.EBADF;
        }
        if (t instanceof ChannelOutputShutdownException) {
            return Errno.EPIPE;
        }
        if (t instanceof NotYetConnectedException) {
            return Errno.ENOTCONN;
        }
        return 0;
    }

    /** Whether the JDK's NIO transport reported a reset connection (its read throws exactly this type). */
    static boolean isJdkConnectionReset(Throwable t) {
        return t != null && t.getClass() == SocketException.class;
    }

    private static boolean isLocal(InetAddress a) {
        if (a == null || a.isAnyLocalAddress() || a.isLoopbackAddress()) {
            return true;
        }
        try {
            return NetworkInterface.getByInetAddress(a) != null;
        } catch (SocketException e) {
            return true; // cannot tell: the usual cause
        }
    }
}
