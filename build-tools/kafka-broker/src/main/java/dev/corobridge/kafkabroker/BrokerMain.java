package dev.corobridge.kafkabroker;

import java.util.Optional;

/**
 * The broker JVM's main class: formats the data directory if it is not yet formatted (what
 * {@code kafka-storage.sh format --ignore-formatted} does), then runs the broker ({@code kafka.Kafka},
 * what {@code kafka-server-start.sh} runs). One JVM per broker start instead of two: on a small
 * machine the second JVM's start-up (Scala and Kafka class loading) cost as much as the broker's.
 *
 * <p>Runs only in the broker JVM, on the broker's class path (this module's optional Kafka
 * dependencies); a module that uses the harness never loads it.
 *
 * <p>A broker started by a {@link KafkaCluster} carries the pid of the JVM that started it
 * ({@link KafkaCluster#OWNER_PROPERTY}) and halts as soon as that JVM is gone: the cluster's
 * shutdown hook stops the brokers of a JVM that exits, but a JVM that dies by a signal or a native
 * abort runs no hook, and its brokers would otherwise outlive it (holding ports, memory and CPU of
 * the next run). The JDK notices the exit of a process that is not its child by polling (every few
 * seconds at most).
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
        String owner = System.getProperty(KafkaCluster.OWNER_PROPERTY);
        if (owner != null) {
            haltWhenGone(Long.parseLong(owner));
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

    /** Halts this JVM once process {@code pid} has exited (at once if it is gone already). */
    private static void haltWhenGone(long pid) {
        Optional<ProcessHandle> ownerProcess = ProcessHandle.of(pid).filter(ProcessHandle::isAlive);
        if (ownerProcess.isEmpty()) {
            ownerGone(pid);
        }
        ownerProcess.get().onExit().thenRun(() -> ownerGone(pid));
    }

    private static void ownerGone(long pid) {
        // Halt, not exit: an orphaned test broker has nobody to hand its data to, and Kafka's own
        // shutdown hook can wait for a quorum that is gone with the rest of the test.
        System.err.println("the JVM that started this broker (pid " + pid + ") is gone: halting");
        System.err.flush();
        Runtime.getRuntime().halt(1);
    }
}
