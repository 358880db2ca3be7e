package dev.corobridge.demo;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.RejectedExecutionException;

import kotlinx.coroutines.CoroutineDispatcher;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.jackson.autoconfigure.JsonMapperBuilderCustomizer;
import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.ContextClosedEvent;
import tools.jackson.core.StreamReadFeature;

import dev.corobridge.demo.board.BoardStore;
import dev.corobridge.demo.changelog.ChangeLog;
import dev.corobridge.demo.changelog.ChangeLogHealthIndicator;
import dev.corobridge.demo.changelog.kafka.BoardPartitioner;
import dev.corobridge.demo.changelog.kafka.KafkaChangeLog;
import dev.corobridge.demo.io.FileClaim;
import dev.corobridge.demo.journal.Journal;
import dev.corobridge.demo.web.ProblemJsonHandler;
import dev.corobridge.demo.web.RequestGuardFilter;
import dev.corobridge.demo.web.transport.ClientFaultSummary;
import dev.corobridge.demo.web.transport.ServiceState;
import dev.corobridge.pump.MessagePump;
import dev.corobridge.ring.RingPool;
import dev.corobridge.spring.CorobridgeAutoConfiguration;
import dev.corobridge.spring.CorobridgeLifecycle;

/**
 * Wires the notes board onto the starter's pump, ring pool and CPU dispatcher.
 *
 * <p><b>Start.</b> The change log (the journal) is opened and replayed into the store (on the pump)
 * while the beans are created, so the web server, which starts after every bean exists, never
 * serves a half-loaded board, and readiness turns {@code UP} only after the replay. A corrupted journal stops the start
 * with the damage named ({@link JournalFailureAnalyzer}) and the file untouched, unless
 * {@code demo.journal.repair} is on.
 *
 * <p><b>Cluster mode</b> ({@code demo.store=kafka}): the change log is the Kafka topic
 * ({@link KafkaChangeLog}), the store decides ids and limits at apply ({@link BoardStore#forCluster}),
 * the replica loads its snapshot before the log's tail is replayed, and every {@code /api} answer
 * names the replica in {@code Served-By}.
 *
 * <p><b>Stop.</b> When the context starts closing, the service refuses new requests (503 with
 * {@code Retry-After} and {@code Connection: close}) and ends event streams and long polls, so
 * graceful shutdown only waits for real work; the {@link ShutdownConfiguration drain} keeps the
 * server answering until its connections are quiet; after the web server has drained, the change
 * log commits what is queued and closes, then the starter stops the pump and the ring pool.
 */
@Configuration(proxyBeanMethods = false)
public class DemoConfiguration {

    private static final Log LOG = LogFactory.getLog(DemoConfiguration.class);

    /** Stops after the web server drained (DEFAULT - 1024) and before the pump (PUMP_PHASE). */
    static final int JOURNAL_PHASE = CorobridgeLifecycle.PUMP_PHASE + 1024;

    @Bean
    ServiceState serviceState() {
        return new ServiceState();
    }

    /** Closed on the pump by {@link #shutdownNotice}; not a destroy method (it is pump-only). */
    @Bean(destroyMethod = "")
    BoardStore boardStore(MessagePump pump, DemoProperties properties) {
        if (properties.clusterMode()) {
            BoardPartitioner partitioner = new BoardPartitioner(properties.kafka().partitions());
            return BoardStore.forCluster(pump, partitioner::partitionOf, partitioner.partitions());
        }
        return new BoardStore(pump);
    }

    /**
     * The change log: the journal, or in cluster mode ({@code demo.store=kafka}) the Kafka topic. A
     * data directory that cannot be used, a journal another service holds, or a corrupted journal
     * (unless demo.journal.repair is on) fails the start here, each explained by its failure analyzer
     * (META-INF/spring.factories). Closed by {@link #changeLogLifecycle} at the right phase; not by
     * bean destruction.
     */
    @Bean(destroyMethod = "")
    ChangeLog changeLog(RingPool pool, DemoProperties properties) throws IOException {
        UnusableDataDirectoryException.prepare(properties.dataDir());
        Path own = properties.clusterMode() ? properties.snapshotFile() : properties.journalFile();
        UnusableDataDirectoryException.checkOwnFile(properties.dataDir(), own);
        UnusableDataDirectoryException.checkFile(properties.dataDir(), FileClaim.lockFileOf(own));
        if (properties.clusterMode()) {
            LOG.info("Cluster mode: replica " + properties.replicaId() + " on topic " + properties.kafka().topic() + " at "
                    + properties.kafka().bootstrapServers());
            return KafkaChangeLog.create(properties.kafka(), properties.replicaId());
        }
        try {
            return Journal.open(pool, properties.journalFile(), properties.ioTimeout(), properties.journal().recovery());
        } catch (IOException e) {
            throw UnusableDataDirectoryException.explainRefusedOpen(properties.dataDir(), e);
        }
    }

    /** The health of the change log, under {@code journal}. */
    @Bean
    ChangeLogHealthIndicator journalHealthIndicator(ChangeLog log) {
        return new ChangeLogHealthIndicator(log);
    }

    /**
     * Started here: the log is replayed into the store before the web server exists. A start that
     * fails closes the log.
     */
    @Bean
    BoardService boardService(MessagePump pump, BoardStore store, ChangeLog log, RingPool pool,
                              @Qualifier(CorobridgeAutoConfiguration.CPU_DISPATCHER) CoroutineDispatcher cpu,
                              DemoProperties properties) throws Exception {
        BoardService service = new BoardService(pump, store, log, pool, cpu, properties);
        try {
            service.start(properties.ioTimeout());
        } catch (Exception | Error failed) {
            // The context will not start, and the lifecycle that closes the log never runs: close
            // it here, so that its threads (a Kafka producer's, a consumer loop) and its claim on
            // the data directory do not outlive the failed start.
            try {
                log.close(properties.ioTimeout());
            } catch (RuntimeException suppressed) {
                failed.addSuppressed(suppressed);
            }
            throw failed;
        }
        return service;
    }

    /**
     * Request bodies with a key twice ({@code {"name":"a","name":"b"}}) are refused (400) rather
     * than read as their last value: which of the two the client meant is a guess, and two readers
     * of the same body (a proxy, a validator) may take different ones.
     */
    @Bean
    JsonMapperBuilderCustomizer strictDuplicateKeys() {
        return builder -> builder.enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION);
    }

    @Bean
    RequestGuardFilter requestGuardFilter(ServiceState state, DemoProperties properties) {
        return new RequestGuardFilter(state, properties.maxBody().toBytes(),
                properties.clusterMode() ? properties.replicaId() : null);
    }

    @Bean
    ProblemJsonHandler problemJsonHandler(ServiceState state, ShutdownProperties shutdown, ClientFaultSummary faults) {
        return new ProblemJsonHandler(state, shutdown.retryAfter(), faults);
    }

    /** Refuses new requests and ends streams and long polls as soon as the context starts closing. */
    @Bean
    ApplicationListener<ContextClosedEvent> shutdownNotice(ServiceState state, MessagePump pump, BoardStore store) {
        return event -> {
            state.shutDown();
            try {
                pump.execute(store::close);
            } catch (RejectedExecutionException terminated) {
                LOG.warn("The pump stopped before the boards could close their streams");
            }
        };
    }

    /** Closes the change log between the web server's drain and the pump's shutdown. */
    @Bean
    SmartLifecycle changeLogLifecycle(ChangeLog log, BoardService service, DemoProperties properties) {
        return new ClosingLifecycle(JOURNAL_PHASE, () -> {
            service.stopSnapshots();
            log.close(properties.ioTimeout());
        });
    }
}
