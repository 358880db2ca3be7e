package dev.corobridge.demo.changelog.kafka;

/**
 * The command topic has fewer partitions than {@code demo.kafka.partitions}: boards are spread over
 * that many partitions by id, so some would go to partitions the topic does not have, and replicas
 * that disagree on the count would put one board in two orders. Found at start, it stops the start
 * (explained by the service's failure analyzer); found later (the brokers were away during the
 * start), writes are refused until the topic has the partitions.
 */
public final class TopicPartitionsException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final String topic;
    private final int partitions;
    private final int configured;

    TopicPartitionsException(String topic, int partitions, int configured) {
        super("topic " + topic + " has " + partitions + " partitions, fewer than demo.kafka.partitions (" + configured
                + "): every replica must use the topic's partitions");
        this.topic = topic;
        this.partitions = partitions;
        this.configured = configured;
    }

    /** The topic. */
    public String topic() {
        return topic;
    }

    /** The partitions it has. */
    public int partitions() {
        return partitions;
    }

    /** {@code demo.kafka.partitions}. */
    public int configured() {
        return configured;
    }
}
