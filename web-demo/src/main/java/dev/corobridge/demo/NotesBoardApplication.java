package dev.corobridge.demo;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

import dev.corobridge.demo.web.transport.ServerEventLoops;

/**
 * The notes board service: boards and notes owned by the UI-affinity {@code MessagePump}, changes
 * made durable in a group-committed journal on the {@code RingPool}, served over WebFlux by a Java
 * controller returning {@code Task<T>} and a Kotlin controller with {@code suspend} functions.
 * See {@code web-demo/API.md}.
 */
@SpringBootApplication
@ConfigurationPropertiesScan
public class NotesBoardApplication {

    public static void main(String[] args) {
        // The launcher as it is now, before it can die while the service starts
        // (demo.shutdown.with-parent watches it).
        ParentProcessWatch.launcher();
        // Before anything loads Reactor Netty: it reads its event loop count once.
        ServerEventLoops.applyDefault();
        SpringApplication.run(NotesBoardApplication.class, args);
    }
}
