package dev.corobridge.kafkabroker;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;

/**
 * {@link KafkaCluster} from the command line, for scripts (the cluster benchmark): starts the
 * brokers, prints where they are, and keeps them running until its standard input ends (the script
 * closes it, or exits) or the JVM is asked to stop (SIGTERM, Ctrl-C); then stops them.
 *
 * <p>Arguments: {@code <brokers (1 or 3)> <directory>}. Output, one line each, once the cluster
 * lists every broker: {@code bootstrap <host:port,...>}, then {@code broker <id> <pid>} per broker,
 * then {@code ready}. Exit status 0 after a normal stop, 2 on bad arguments, 1 if the cluster does
 * not come up (the reason on standard error).
 *
 * <p>Run it on the harness's class path: {@code target/classes} of this module and the jars listed
 * in {@code target/kafka-broker/classpath.txt}.
 */
public final class KafkaClusterMain {

    private KafkaClusterMain() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 2 || !(args[0].equals("1") || args[0].equals("3"))) {
            System.err.println("usage: KafkaClusterMain <brokers: 1 or 3> <directory>");
            System.exit(2);
        }
        KafkaCluster cluster;
        try {
            cluster = KafkaCluster.start(Integer.parseInt(args[0]), Path.of(args[1]).toAbsolutePath());
        } catch (RuntimeException e) {
            System.err.println("the Kafka cluster did not start: " + e.getMessage());
            System.exit(1);
            return;
        }
        // SIGTERM and Ctrl-C stop the brokers too (close is idempotent).
        Runtime.getRuntime().addShutdownHook(new Thread(cluster::close, "kafka-cluster-main-stop"));
        System.out.println("bootstrap " + cluster.bootstrapServers());
        for (int i = 0; i < cluster.size(); i++) {
            System.out.println("broker " + i + " " + cluster.process(i).pid());
        }
        System.out.println("ready");
        System.out.flush();
        InputStream in = System.in;
        byte[] skip = new byte[256];
        while (in.read(skip) >= 0) {
            // Only the end of the input matters.
        }
        cluster.close();
    }
}
