package dev.corobridge.kafkabroker;

/**
 * The broker JVM's main class: formats the data directory if it is not yet formatted (what
 * {@code kafka-storage.sh format --ignore-formatted} does), then runs the broker ({@code kafka.Kafka},
 * what {@code kafka-server-start.sh} runs). One JVM per broker start instead of two: on a small
 * machine the second JVM's start-up (Scala and Kafka class loading) cost as much as the broker's.
 *
 * <p>Runs only in the broker JVM, on the broker's class path (this module's optional Kafka
 * dependencies); a module that uses the harness never loads it.
 *
 * <p>Arguments: {@code <cluster id> <server.properties>}.
 */
public final class BrokerMain {

    private BrokerMain() {
    }

    public static void main(String[] args) {
        if (args.length != 2) {
            System.err.println("usage: BrokerMain <cluster id> <server.properties>");
            System.exit(2);
        }
        int code;
        try {
            code = kafka.tools.StorageTool.execute(
                    new String[] {"format", "--ignore-formatted", "-t", args[0], "-c", args[1]}, System.out);
        } catch (RuntimeException e) {
            // StorageTool reports a bad configuration by throwing (TerseFailure): its message says what.
            System.err.println("formatting failed: " + e);
            code = 1;
        }
        if (code != 0) {
            System.exit(code);
        }
        kafka.Kafka.main(new String[] {args[1]});
    }
}
