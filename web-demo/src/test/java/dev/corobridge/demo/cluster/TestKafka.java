package dev.corobridge.demo.cluster;

import java.util.UUID;

/** The broker of the cluster tests. */
final class TestKafka implements AutoCloseable {

    private final String bootstrap;

    private TestKafka(String bootstrap) {
        this.bootstrap = bootstrap;
    }

    static TestKafka start() {
        String given = System.getProperty("corobridge.test.kafka");
        if (given == null) {
            throw new IllegalStateException("no broker: set -Dcorobridge.test.kafka=host:port");
        }
        return new TestKafka(given);
    }

    /** A topic no other test uses. */
    static String freshTopic() {
        return "notes-" + UUID.randomUUID();
    }

    String bootstrap() {
        return bootstrap;
    }

    @Override
    public void close() {
    }
}
