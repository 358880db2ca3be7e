package dev.corobridge.spring;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoEventLoopGroup;
import io.netty.channel.uring.IoUringIoHandle;
import io.netty.util.concurrent.EventExecutor;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.http.client.ReactorResourceFactory;

/**
 * The server event loops of the application's Reactor Netty web server, when they are io_uring
 * loops: those of its {@link ReactorResourceFactory} bean (Reactor Netty's global resources, or the
 * factory's own when {@code useGlobalResources} is off, as under {@code @SpringBootTest}). Without
 * such a bean there is no such server, and nothing is shared (nor created: asking Reactor Netty's
 * global resources would start loops that nobody stops). The factory stops its loops at phase 0,
 * after the pool's lifecycle, so they outlive the pool. Loaded only when Reactor Netty and
 * spring-web are on the class path.
 */
final class ReactorNettyLoops {

    record Found(IoEventLoopGroup group, String reason) {
    }

    private ReactorNettyLoops() {
    }

    static Found ioUringServerLoops(BeanFactory beans) {
        ReactorResourceFactory resources = beans.getBeanProvider(ReactorResourceFactory.class).getIfUnique();
        if (resources == null) {
            return new Found(null, "the application has no Reactor Netty server resources (no single "
                    + "ReactorResourceFactory bean: no Reactor Netty web server)");
        }
        EventLoopGroup group;
        try {
            group = resources.getLoopResources().onServer(true);
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
