package dev.corobridge.spring;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoEventLoopGroup;
import io.netty.channel.uring.IoUringIoHandle;
import io.netty.util.concurrent.EventExecutor;
import reactor.netty.http.HttpResources;

/**
 * Reactor Netty's global server event loops ({@link HttpResources}, which Boot's Reactor Netty
 * server uses unless it was given its own {@code ReactorResourceFactory} resources), when they are
 * io_uring loops. Loaded only when Reactor Netty is on the class path.
 */
final class ReactorNettyLoops {

    record Found(IoEventLoopGroup group, String reason) {
    }

    private ReactorNettyLoops() {
    }

    static Found ioUringServerLoops() {
        EventLoopGroup group;
        try {
            group = HttpResources.get().onServer(true);
        } catch (RuntimeException e) {
            return new Found(null, "Reactor Netty's loop resources are not available (" + e + ")");
        }
        if (!(group instanceof IoEventLoopGroup io)) {
            return new Found(null, "Reactor Netty's server group " + group.getClass().getName()
                    + " is not a Netty 4.2 IoEventLoopGroup");
        }
        EventExecutor first = io.next();
        if (first instanceof IoEventLoop loop && loop.isCompatible(IoUringIoHandle.class)) {
            return new Found(io, "");
        }
        return new Found(null, "Reactor Netty's server loops are not io_uring loops (" + first.getClass().getName() + ")");
    }
}
