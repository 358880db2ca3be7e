package dev.corobridge.demo.changelog.kafka;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.MDC;

import dev.corobridge.bridge.HopTrace;
import dev.corobridge.bridge.Promise;
import dev.corobridge.bridge.Task;
import dev.corobridge.demo.DemoProperties;
import dev.corobridge.demo.board.BoardException;
import dev.corobridge.demo.board.Change;
import dev.corobridge.demo.changelog.ChangeLog;
import dev.corobridge.demo.changelog.ChangeLogClosedException;
import dev.corobridge.demo.changelog.ChangeLogHealth;
import dev.corobridge.demo.changelog.ChangeLogMetrics;
import dev.corobridge.demo.changelog.ChangeSink;
import dev.corobridge.demo.changelog.LogPosition;
import dev.corobridge.demo.changelog.LoggedChange;
import dev.corobridge.demo.changelog.RateLimitedWarning;
import dev.corobridge.demo.journal.JournalCodec;

/**
 * Cluster mode's {@link ChangeLog}: a command topic on Apache Kafka, partitioned by board id, that
 * every replica reads in full. The log is the source of truth; each replica's store is a
 * deterministic state machine fed from it.
 *
 * <p><b>Append.</b> A change is a record: key the board id, value the change in the journal's
 * payload format ({@link JournalCodec#payload}), headers the replica, its run, the append id and the
 * request's trace id ({@link KafkaHeaders}). The partition is {@link BoardPartitioner}'s, so each
 * board's commands keep one order. The producer is idempotent with {@code acks=all}: a record is
 * acknowledged once every in-sync replica has it ({@code min.insync.replicas} of the topic). The
 * append hands the record to a thread of its own ({@code kafka-send-<replica>}) because
 * {@code send} blocks while metadata is missing or the buffer is full, and the board code appends on
 * the pump; one thread keeps the appends' order. The producer's callback completes the append's
 * task with the record's partition and offset (the trace gets a {@code kafka:produce} step).
 *
 * <p><b>Delivery.</b> One consumer, single-threaded by contract, owned by its own loop thread
 * ({@code kafka-consume-<replica>}, the affinity context of everything the consumer does). It
 * {@code assign}s every partition (no consumer group: every replica reads everything), seeks to the
 * positions {@link #start} names (or the beginning), reads the end offsets, and hands each poll's
 * records to the sink as one batch: as {@link ChangeSink#replay} until every partition reached the
 * end offsets read at start, then as {@link ChangeSink#apply}. A record this run appended carries
 * its append id to the sink (and its trace gets a {@code kafka:consume} step on the loop thread);
 * others, and records of earlier runs, carry {@link LoggedChange#NOT_APPENDED_HERE} and their
 * request's trace id.
 *
 * <p><b>Broker unreachable.</b> The loop checks the end offsets about once a second (the lag it
 * reports); when that fails and no broker answers a request for the cluster's brokers either (one
 * partition between leaders fails the end offsets of all while the other brokers serve), the log
 * counts as disconnected: health DOWN, appends refused at once
 * with {@link BoardException.Kind#UNAVAILABLE} (503), and a WARN line at most every 10 seconds. An
 * append made while connected fails so after {@code demo.kafka.append-timeout} at most (the
 * producer's delivery timeout); such a change may still have reached the log, and is then applied
 * everywhere. The first successful check reconnects: no restart. If the broker cannot be reached
 * within {@code demo.kafka.start-wait} at start, {@link #start} completes anyway and the replay
 * comes later as live changes. Brokers that answer while no partition of the topic has a leader
 * (the brokers that hold them are all away) count as disconnected too: no write could be taken;
 * partitions without a leader are named in the health ({@code leaderlessPartitions}) either way.
 *
 * <p><b>Thread-safety.</b> As {@link ChangeLog}: {@link #append}, {@link #metrics}, {@link #health},
 * {@link #clusterStatus} and {@link #close} from any thread. The consumer is touched only by the
 * loop thread, the producer by the send thread and (flush and close) by {@link #close}; counters are
 * atomics, the per-partition status a concurrent map of immutable entries.
 */
public final class KafkaChangeLog implements ChangeLog {

    private static final Log LOG = LogFactory.getLog(KafkaChangeLog.class);
    /** How often the loop reads the end offsets (lag, connectivity). */
    private static final Duration CHECK_EVERY = Duration.ofSeconds(1);
    private static final Duration POLL = Duration.ofMillis(100);
    /** Appends waiting for the send thread; more are refused (503). */
    private static final int MAX_WAITING_SENDS = 10_000;

    private final DemoProperties.KafkaSettings settings;
    private final String replicaId;
    private final long run = new SecureRandom().nextLong();
    private final BoardPartitioner partitioner;
    private final KafkaProducer<String, byte[]> producer;
    private final ExecutorService sender;
    /** One rate limit per kind of warning, so that one kind neither hides nor counts another. */
    private final RateLimitedWarning unreachableWarning = new RateLimitedWarning(LOG, 10, TimeUnit.SECONDS);
    private final RateLimitedWarning topicWarning = new RateLimitedWarning(LOG, 10, TimeUnit.SECONDS);
    private final RateLimitedWarning skippedWarning = new RateLimitedWarning(LOG, 10, TimeUnit.SECONDS);
    private final RateLimitedWarning appendWarning = new RateLimitedWarning(LOG, 10, TimeUnit.SECONDS);
    /** Traces of this run's appends not consumed yet: the loop records {@code kafka:consume} in them. */
    private final ConcurrentHashMap<Long, HopTrace> awaitingConsume = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Integer, PartitionStatus> partitions = new ConcurrentHashMap<>();
    private final AtomicBoolean closing = new AtomicBoolean();
    private final AtomicBoolean started = new AtomicBoolean();
    private final CountDownLatch closed = new CountDownLatch(1);
    private final AtomicLong produced = new AtomicLong();
    private final AtomicLong producedBytes = new AtomicLong();
    private final AtomicLong replayed = new AtomicLong();
    private final AtomicLong delivered = new AtomicLong();
    private final AtomicLong deliveries = new AtomicLong();
    private final AtomicLong largestDelivery = new AtomicLong();
    private final AtomicLong failedAppends = new AtomicLong();
    private final AtomicInteger inFlight = new AtomicInteger();
    private volatile boolean connected;
    private volatile boolean caughtUp;
    private volatile String problem = "not started";
    /** The partitions without a leader at the last check that found any (written by the loop thread). */
    private volatile List<Integer> leaderless = List.of();
    private volatile Thread loop;
    /** The loop's consumer, for {@code wakeup} (the one call safe from another thread) at close. */
    private volatile KafkaConsumer<String, byte[]> consumerForWakeup;

    private KafkaChangeLog(DemoProperties.KafkaSettings settings, String replicaId) {
        this.settings = settings;
        this.replicaId = replicaId;
        this.partitioner = new BoardPartitioner(settings.partitions());
        this.producer = new KafkaProducer<>(producerConfig(), new StringSerializer(), new ByteArraySerializer());
        ThreadPoolExecutor send = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS,
                new LinkedBlockingQueue<>(MAX_WAITING_SENDS), r -> {
                    Thread t = new Thread(r, "kafka-send-" + replicaId);
                    t.setDaemon(true);
                    return t;
                });
        this.sender = send;
    }

    /**
     * A log on {@code settings.topic()}; nothing is read until {@link #start}. Creating it does not
     * reach the broker (the producer connects lazily), so it succeeds with the broker down.
     */
    public static KafkaChangeLog create(DemoProperties.KafkaSettings settings, String replicaId) {
        Objects.requireNonNull(settings.bootstrapServers(), "demo.kafka.bootstrap-servers");
        return new KafkaChangeLog(settings, replicaId);
    }

    /** The partitioner every replica of this topic uses. */
    public BoardPartitioner partitioner() {
        return partitioner;
    }

    /** This replica's id. */
    public String replicaId() {
        return replicaId;
    }

    private Properties common() {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
        p.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 1000);
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, "notes-board-" + replicaId);
        return p;
    }

    /** The loop's admin client: its calls time out with the append timeout. */
    private Properties adminConfig() {
        Properties p = common();
        int ms = (int) settings.appendTimeout().toMillis();
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, ms);
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, ms);
        return p;
    }

    private Properties producerConfig() {
        Properties p = common();
        long deliveryMs = settings.appendTimeout().toMillis();
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 1);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) deliveryMs);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) Math.max(50, deliveryMs - 1));
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, deliveryMs);
        return p;
    }

    private Properties consumerConfig() {
        Properties p = common();
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2000);
        p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 50);
        return p;
    }

    // ------------------------------------------------------------------ start and the loop

    /**
     * Starts the loop thread (see the class comment). The task completes once the replay up to the
     * end offsets read at start has been handed to the sink, or once {@code demo.kafka.start-wait}
     * passed without reaching the broker (the replay then arrives as live changes).
     *
     * @throws IllegalStateException if started before
     */
    @Override
    public Task<Void> start(List<LogPosition> from, ChangeSink sink) {
        Objects.requireNonNull(sink, "sink");
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException("the Kafka change log was started before");
        }
        Promise<Void> ready = new Promise<>();
        Map<Integer, Long> seekTo = new HashMap<>();
        for (LogPosition p : from) {
            seekTo.put(p.partition(), p.offset());
        }
        Thread t = new Thread(() -> runLoop(seekTo, sink, ready), "kafka-consume-" + replicaId);
        t.setDaemon(true);
        loop = t;
        t.start();
        Thread waiter = new Thread(() -> {
            try {
                if (!ready.isDone() && !closed.await(settings.startWait().toMillis(), TimeUnit.MILLISECONDS)
                        && !caughtUpOrReplaying()) {
                    LOG.warn("Kafka: could not reach " + settings.bootstrapServers() + " within demo.kafka.start-wait ("
                            + settings.startWait() + "); starting without the log: writes are refused (503) until it "
                            + "is reachable, then the boards catch up");
                    ready.complete(null);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "kafka-start-wait-" + replicaId);
        waiter.setDaemon(true);
        waiter.start();
        return Task.from(ready);
    }

    /** Whether the loop got the end offsets (it is replaying or live): then the start waits for the replay. */
    private boolean caughtUpOrReplaying() {
        return !partitions.isEmpty();
    }

    private void runLoop(Map<Integer, Long> seekTo, ChangeSink sink, Promise<Void> ready) {
        Admin admin = Admin.create(adminConfig()); // reaches no broker until asked
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(consumerConfig(), new StringDeserializer(),
                new ByteArrayDeserializer())) {
            consumerForWakeup = consumer;
            if (closing.get()) {
                return;
            }
            Map<TopicPartition, Long> replayUntil = null;
            long nextCheck = 0;
            while (!closing.get()) {
                try {
                    if (replayUntil == null) {
                        try {
                            replayUntil = assignAndSeek(consumer, admin, seekTo);
                        } catch (TopicPartitionsException | SnapshotAheadOfLogException misfit) {
                            problem = misfit.getMessage();
                            connected = false;
                            if (ready.fail(misfit)) {
                                return; // the start fails with it, and the service does not start
                            }
                            topicWarning.warn("Kafka: " + problem + "; writes are refused (503) until this is mended", null);
                        }
                        if (replayUntil == null) {
                            closed.await(CHECK_EVERY.toMillis(), TimeUnit.MILLISECONDS); // broker down: wait, or close
                            continue;
                        }
                        nextCheck = System.nanoTime() + CHECK_EVERY.toNanos();
                    }
                    ConsumerRecords<String, byte[]> records = consumer.poll(POLL);
                    boolean replaying = !caughtUp;
                    if (!records.isEmpty()) {
                        deliver(records, sink, replaying && !ready.isDone());
                    }
                    if (replaying && reached(consumer, replayUntil)) {
                        caughtUp = true;
                        ready.complete(null);
                        LOG.info("Kafka: replica " + replicaId + " caught up with " + settings.topic() + " ("
                                + replayed.get() + " changes replayed); applying live changes");
                    }
                    if (System.nanoTime() - nextCheck >= 0) {
                        checkEnds(consumer, admin);
                        nextCheck = System.nanoTime() + CHECK_EVERY.toNanos();
                    }
                } catch (WakeupException wake) {
                    // close: the loop condition ends it
                } catch (KafkaException e) {
                    if (closing.get()) {
                        break;
                    }
                    disconnected("the consumer failed", e);
                    closed.await(CHECK_EVERY.toMillis(), TimeUnit.MILLISECONDS);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException bug) {
            problem = "the consumer loop stopped: " + bug;
            connected = false;
            LOG.error("Kafka: the consumer loop of replica " + replicaId + " stopped; the replica applies no more changes",
                    bug);
        } finally {
            admin.close(settings.appendTimeout()); // none of its calls is under way: they run on this thread
        }
    }

    /**
     * Creates the topic if it is missing, checks its partitions, assigns them all and seeks; returns
     * the end offsets to replay up to, or {@code null} if the broker could not be reached (or the
     * topic does not fit), to be tried again.
     */
    private Map<TopicPartition, Long> assignAndSeek(KafkaConsumer<String, byte[]> consumer, Admin admin,
                                                    Map<Integer, Long> seekTo) {
        int count;
        try {
            count = ensureTopic(admin);
        } catch (ExecutionException | java.util.concurrent.TimeoutException | KafkaException e) {
            disconnected("cannot reach the brokers at " + settings.bootstrapServers(), e.getCause() != null ? e.getCause() : e);
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
        if (count < settings.partitions()) {
            throw new TopicPartitionsException(settings.topic(), count, settings.partitions());
        }
        List<TopicPartition> all = new ArrayList<>();
        for (int p = 0; p < settings.partitions(); p++) {
            all.add(new TopicPartition(settings.topic(), p));
        }
        consumer.assign(all);
        for (TopicPartition tp : all) {
            Long at = seekTo.get(tp.partition());
            if (at == null) {
                consumer.seekToBeginning(List.of(tp));
            } else {
                consumer.seek(tp, at);
            }
        }
        Map<TopicPartition, Long> ends;
        try {
            ends = consumer.endOffsets(all, settings.appendTimeout());
        } catch (KafkaException e) {
            disconnected("cannot read the end offsets of " + settings.topic(), e);
            return null;
        }
        for (TopicPartition tp : all) {
            Long at = seekTo.get(tp.partition());
            Long end = ends.get(tp);
            if (at != null && end != null && at > end) {
                // End offsets never go back: a snapshot beyond one was taken from another log.
                throw new SnapshotAheadOfLogException(settings.topic(), tp.partition(), at, end);
            }
        }
        for (TopicPartition tp : all) {
            long start = seekTo.getOrDefault(tp.partition(), 0L);
            partitions.put(tp.partition(), new PartitionStatus(start, ends.get(tp)));
        }
        reconnected();
        LOG.info("Kafka: replica " + replicaId + " reads " + settings.topic() + " (" + all.size() + " partitions) from "
                + (seekTo.isEmpty() ? "the beginning" : "its snapshot's offsets " + seekTo) + " up to " + endsOf(ends));
        return ends;
    }

    private static Map<Integer, Long> endsOf(Map<TopicPartition, Long> ends) {
        Map<Integer, Long> out = new java.util.TreeMap<>();
        ends.forEach((tp, end) -> out.put(tp.partition(), end));
        return out;
    }

    /** The topic's partition count, creating the topic first when it is missing. */
    private int ensureTopic(Admin admin) throws ExecutionException, InterruptedException,
            java.util.concurrent.TimeoutException {
        long ms = settings.appendTimeout().toMillis();
        Map<String, TopicDescription> found;
        try {
            found = admin.describeTopics(List.of(settings.topic())).allTopicNames().get(ms, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof org.apache.kafka.common.errors.UnknownTopicOrPartitionException)) {
                throw e;
            }
            // The log is the source of truth: nothing in it expires.
            Map<String, String> configs = new HashMap<>(Map.of("retention.ms", "-1", "retention.bytes", "-1"));
            if (settings.minInsyncReplicas() != null) {
                configs.put("min.insync.replicas", Integer.toString(settings.minInsyncReplicas()));
            }
            NewTopic topic = new NewTopic(settings.topic(), java.util.Optional.of(settings.partitions()),
                    java.util.Optional.ofNullable(settings.replicationFactor())).configs(configs);
            try {
                admin.createTopics(List.of(topic)).all().get(ms, TimeUnit.MILLISECONDS);
                LOG.info("Kafka: created topic " + settings.topic() + " (" + settings.partitions() + " partitions, "
                        + "replication factor " + orBrokerDefault(settings.replicationFactor()) + ", min.insync.replicas "
                        + orBrokerDefault(settings.minInsyncReplicas()) + ")");
            } catch (ExecutionException exists) {
                if (!(exists.getCause() instanceof TopicExistsException)) {
                    throw exists;
                }
            }
            found = admin.describeTopics(List.of(settings.topic())).allTopicNames().get(ms, TimeUnit.MILLISECONDS);
        }
        return found.get(settings.topic()).partitions().size();
    }

    private static String orBrokerDefault(Number n) {
        return n == null ? "the brokers' default" : n.toString();
    }

    /** Hands one poll's records to the sink: each partition's in order, one call. */
    private void deliver(ConsumerRecords<String, byte[]> records, ChangeSink sink, boolean asReplay) {
        List<LoggedChange> batch = new ArrayList<>(records.count());
        for (ConsumerRecord<String, byte[]> r : records) {
            Change change = r.value() == null ? null : JournalCodec.change(r.value());
            if (change == null) {
                skippedWarning.warn("Kafka: skipped a record that holds no change at " + r.partition() + "/" + r.offset()
                        + " of " + settings.topic(), null);
                continue;
            }
            long appendId = LoggedChange.NOT_APPENDED_HERE;
            String traceId = KafkaHeaders.text(r.headers(), KafkaHeaders.TRACE_ID);
            if (replicaId.equals(KafkaHeaders.text(r.headers(), KafkaHeaders.REPLICA))
                    && KafkaHeaders.number(r.headers(), KafkaHeaders.RUN, ~run) == run) {
                appendId = KafkaHeaders.number(r.headers(), KafkaHeaders.APPEND_ID, LoggedChange.NOT_APPENDED_HERE);
                HopTrace trace = awaitingConsume.remove(appendId);
                if (trace != null) {
                    trace.record("kafka", "consume");
                }
                if (traceId != null && LOG.isDebugEnabled()) {
                    try (MDC.MDCCloseable ignored = MDC.putCloseable("traceId", traceId)) {
                        LOG.debug("kafka: consumed own change at " + r.partition() + "/" + r.offset());
                    }
                }
            }
            batch.add(new LoggedChange(change, new LogPosition(r.partition(), r.offset()), appendId, traceId));
        }
        for (TopicPartition tp : records.partitions()) {
            List<ConsumerRecord<String, byte[]>> rs = records.records(tp);
            long next = rs.getLast().offset() + 1;
            partitions.computeIfPresent(tp.partition(), (p, s) -> s.deliveredUpTo(next));
        }
        if (batch.isEmpty()) {
            return;
        }
        deliveries.incrementAndGet();
        largestDelivery.accumulateAndGet(batch.size(), Math::max);
        try {
            if (asReplay) {
                replayed.addAndGet(batch.size());
                sink.replay(batch);
            } else {
                delivered.addAndGet(batch.size());
                sink.apply(batch);
            }
        } catch (RuntimeException bug) {
            LOG.error("Kafka: the change sink failed on " + batch.size() + " changes", bug);
        }
    }

    /**
     * Whether the consumer's position reached {@code ends} on every partition (a position not known
     * yet, e.g. right after a seek to the beginning of an unreachable broker's partition, is not).
     */
    private static boolean reached(KafkaConsumer<String, byte[]> consumer, Map<TopicPartition, Long> ends) {
        for (Map.Entry<TopicPartition, Long> e : ends.entrySet()) {
            try {
                if (consumer.position(e.getKey(), POLL) < e.getValue()) {
                    return false;
                }
            } catch (org.apache.kafka.common.errors.TimeoutException notYet) {
                return false;
            }
        }
        return true;
    }

    /**
     * Reads the end offsets (the lag) and tells whether the brokers answer. The end offsets of every
     * partition fail together when one partition has no leader for a moment (its broker died and
     * the controller has not moved its leadership yet), while the other brokers serve the rest: so
     * a failure is checked by asking the cluster for its brokers, and only a cluster that does not
     * answer that either counts as unreachable. Writes to the leaderless partition wait for its new
     * leader (or time out, 503), the others go on.
     */
    private void checkEnds(KafkaConsumer<String, byte[]> consumer, Admin admin) {
        try {
            Map<TopicPartition, Long> ends = consumer.endOffsets(consumer.assignment(), CHECK_EVERY);
            ends.forEach((tp, end) -> partitions.computeIfPresent(tp.partition(), (p, s) -> s.withEnd(end)));
            leaderless = List.of();
            reconnected();
        } catch (KafkaException e) {
            if (!brokersAnswer(admin)) {
                disconnected("cannot reach the brokers at " + settings.bootstrapServers(), e);
                return;
            }
            List<Integer> without = leaderlessPartitions(admin);
            leaderless = without;
            if (without.size() >= settings.partitions()) {
                // Every partition's brokers are away (a replication factor that one lost broker
                // defeats): no write can be taken, as if no broker answered.
                disconnected("no partition of " + settings.topic() + " has a leader (the brokers that hold them are away)", e);
                return;
            }
            reconnected();
            if (LOG.isDebugEnabled()) {
                LOG.debug("Kafka: the end offsets of " + settings.topic() + " could not be read (" + e
                        + "), but the brokers answer: a partition between leaders " + without);
            }
        }
    }

    /**
     * The partitions of the topic (of those this replica reads) that have no leader in the
     * cluster's metadata; none when the metadata cannot be read (the end offsets' failure is then
     * a passing one: the next check asks again).
     */
    private List<Integer> leaderlessPartitions(Admin admin) {
        try {
            int ms = (int) CHECK_EVERY.toMillis();
            TopicDescription topic = admin.describeTopics(List.of(settings.topic()),
                            new org.apache.kafka.clients.admin.DescribeTopicsOptions().timeoutMs(ms))
                    .allTopicNames().get(ms, TimeUnit.MILLISECONDS).get(settings.topic());
            List<Integer> without = new ArrayList<>();
            for (org.apache.kafka.common.TopicPartitionInfo p : topic.partitions()) {
                if (p.partition() < settings.partitions() && (p.leader() == null || p.leader().isEmpty())) {
                    without.add(p.partition());
                }
            }
            return List.copyOf(without);
        } catch (ExecutionException | java.util.concurrent.TimeoutException | KafkaException e) {
            return List.of();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of();
        }
    }

    /** Whether any broker of the cluster answers within {@link #CHECK_EVERY}. */
    private static boolean brokersAnswer(Admin admin) {
        try {
            int ms = (int) CHECK_EVERY.toMillis();
            return !admin.describeCluster(new DescribeClusterOptions().timeoutMs(ms)).nodes()
                    .get(ms, TimeUnit.MILLISECONDS).isEmpty();
        } catch (ExecutionException | java.util.concurrent.TimeoutException | KafkaException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private void reconnected() {
        if (!connected) {
            connected = true;
            problem = null;
            LOG.info("Kafka: replica " + replicaId + " reaches the brokers at " + settings.bootstrapServers());
        }
    }

    private void disconnected(String what, Throwable cause) {
        if (closing.get()) {
            return; // close woke the loop up: not the brokers' doing
        }
        connected = false;
        problem = what;
        unreachableWarning.warn("Kafka: " + what + "; writes are refused (503) until this recovers", cause);
    }

    // ------------------------------------------------------------------ append

    /**
     * Produces the change (see the class comment). Fails at once with {@link ChangeLogClosedException}
     * when closing, and with {@link BoardException} ({@code UNAVAILABLE}) while the brokers are
     * unreachable or too many appends wait; after {@code demo.kafka.append-timeout} at most when the
     * producer gets no acknowledgement.
     */
    @Override
    public Task<LogPosition> append(Change change, long appendId, HopTrace trace) {
        Promise<LogPosition> durable = new Promise<>();
        if (closing.get()) {
            durable.fail(new ChangeLogClosedException("the Kafka change log is closing; the change was not written"));
            return Task.from(durable);
        }
        String why = problem;
        if (!connected) {
            durable.fail(unavailable(why == null ? "this replica does not reach the brokers" : why, null));
            return Task.from(durable);
        }
        String traceId = MDC.get("traceId");
        ProducerRecord<String, byte[]> record = new ProducerRecord<>(settings.topic(),
                partitioner.partitionOf(change.boardId()), change.boardId(), JournalCodec.payload(change));
        record.headers().add(new RecordHeader(KafkaHeaders.REPLICA, KafkaHeaders.utf8(replicaId)));
        record.headers().add(new RecordHeader(KafkaHeaders.RUN, KafkaHeaders.long8(run)));
        record.headers().add(new RecordHeader(KafkaHeaders.APPEND_ID, KafkaHeaders.long8(appendId)));
        if (traceId != null) {
            record.headers().add(new RecordHeader(KafkaHeaders.TRACE_ID, KafkaHeaders.utf8(traceId)));
        }
        if (trace != null) {
            awaitingConsume.put(appendId, trace);
        }
        inFlight.incrementAndGet();
        try {
            sender.execute(() -> send(record, appendId, trace, durable));
        } catch (RejectedExecutionException full) {
            inFlight.decrementAndGet();
            awaitingConsume.remove(appendId);
            durable.fail(closing.get()
                    ? new ChangeLogClosedException("the Kafka change log is closing; the change was not written")
                    : unavailable("too many writes wait for the brokers", full));
        }
        return Task.from(durable);
    }

    /** On the send thread: hands the record to the producer, whose callback completes {@code durable}. */
    private void send(ProducerRecord<String, byte[]> record, long appendId, HopTrace trace, Promise<LogPosition> durable) {
        try {
            producer.send(record, (meta, error) -> {
                inFlight.decrementAndGet();
                if (error != null) {
                    failedAppends.incrementAndGet();
                    awaitingConsume.remove(appendId);
                    appendWarning.warn("Kafka: a change was not acknowledged within demo.kafka.append-timeout ("
                            + settings.appendTimeout() + ")", error);
                    durable.fail(unavailable("the brokers did not acknowledge the change within "
                            + settings.appendTimeout() + "; it may still be applied", error));
                    return;
                }
                produced.incrementAndGet();
                producedBytes.addAndGet(record.value().length);
                if (trace != null) {
                    trace.record("kafka", "produce");
                }
                durable.complete(new LogPosition(meta.partition(), meta.offset()));
            });
        } catch (KafkaException | IllegalStateException e) {
            inFlight.decrementAndGet();
            failedAppends.incrementAndGet();
            awaitingConsume.remove(appendId);
            appendWarning.warn("Kafka: the producer refused a change", e);
            durable.fail(closing.get()
                    ? new ChangeLogClosedException("the Kafka change log is closing; the change was not written")
                    : unavailable("the producer refused the change", e));
        }
    }

    /** The refusal a client reads (503): names the reason, not the servers' addresses. */
    private static BoardException unavailable(String reason, Throwable cause) {
        String r = reason.replaceAll(" at [^ ;]*", "");
        String message = "the change log cannot take changes now (" + r + "); try again";
        return new BoardException(BoardException.Kind.UNAVAILABLE, message,
                new dev.corobridge.demo.changelog.ChangeLogUnavailableException(message, cause));
    }

    // ------------------------------------------------------------------ status

    /**
     * Counters: {@code changes} acknowledged appends of this run, {@code replayed} changes replayed
     * at start, {@code commits} deliveries to the sink (each one poll's records), {@code bytes}
     * payload bytes produced, {@code largestBatch} most changes one delivery carried, {@code queued}
     * appends not acknowledged yet; {@code broken} while the brokers are unreachable.
     */
    @Override
    public ChangeLogMetrics metrics() {
        return new ChangeLogMetrics(produced.get(), replayed.get(), deliveries.get(), producedBytes.get(),
                largestDelivery.get(), inFlight.get(), !connected);
    }

    /**
     * Up while the brokers answer and some partition has a leader; details: replica, topic,
     * connectivity, lag, why it is down, and the partitions without a leader if any.
     */
    @Override
    public ChangeLogHealth health() {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("store", "kafka");
        d.put("replicaId", replicaId);
        d.put("topic", settings.topic());
        d.put("connected", connected);
        d.put("caughtUp", caughtUp);
        d.put("lag", lag());
        String why = problem;
        if (why != null) {
            d.put("reason", why);
        }
        List<Integer> without = leaderless;
        if (!without.isEmpty()) {
            d.put("leaderlessPartitions", without);
        }
        return new ChangeLogHealth(connected, d);
    }

    private long lag() {
        long lag = 0;
        for (PartitionStatus s : partitions.values()) {
            lag += s.lag();
        }
        return lag;
    }

    /**
     * The cluster panel's data: replica, topic, broker connectivity, and per partition the offset
     * delivered up to, the end offset last read and the lag; the producer's records per request.
     */
    @Override
    public Map<String, Object> clusterStatus() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("replicaId", replicaId);
        out.put("topic", settings.topic());
        out.put("connected", connected);
        out.put("caughtUp", caughtUp);
        String why = problem;
        out.put("problem", why == null ? null : why.replaceAll(" at [^ ;]*", ""));
        out.put("lag", lag());
        out.put("failedAppends", failedAppends.get());
        out.put("recordsPerProduceRequest", producerMetric("records-per-request-avg"));
        List<Map<String, Object>> ps = new ArrayList<>();
        new java.util.TreeMap<>(partitions).forEach((p, s) -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("partition", p);
            m.put("delivered", s.delivered());
            m.put("end", s.end());
            m.put("lag", s.lag());
            ps.add(m);
        });
        out.put("partitions", ps);
        return out;
    }

    private Double producerMetric(String name) {
        for (Map.Entry<MetricName, ? extends Metric> e : producer.metrics().entrySet()) {
            if (e.getKey().name().equals(name) && e.getKey().group().equals("producer-metrics")) {
                Object v = e.getValue().metricValue();
                return v instanceof Double d && !d.isNaN() ? d : null;
            }
        }
        return null;
    }

    // ------------------------------------------------------------------ close

    /**
     * Refuses new appends, lets the producer deliver what it holds (up to {@code timeout}), closes
     * it, then stops the loop (which closes the consumer). Appends still unacknowledged after the
     * timeout fail (the producer fails them on close).
     */
    @Override
    public void close(Duration timeout) {
        if (!closing.compareAndSet(false, true)) {
            return;
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        sender.shutdown();
        try {
            if (!sender.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                sender.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            producer.close(remaining(deadline));
        } catch (KafkaException e) {
            LOG.warn("Kafka: closing the producer failed: " + e);
        }
        closed.countDown();
        KafkaConsumer<String, byte[]> c = consumerForWakeup;
        if (c != null) {
            c.wakeup(); // the one consumer call safe from another thread; the loop then closes it
        }
        Thread t = loop;
        if (t != null) {
            try {
                t.join(Math.max(1, remaining(deadline).toMillis()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        LOG.info("Kafka: closed the change log of replica " + replicaId + "; " + metrics());
    }

    private static Duration remaining(long deadline) {
        return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
    }

    /** One partition as the loop sees it: delivered up to (exclusive), end offset last read. Immutable. */
    private record PartitionStatus(long delivered, long end) {

        PartitionStatus deliveredUpTo(long next) {
            return new PartitionStatus(Math.max(delivered, next), Math.max(end, next));
        }

        PartitionStatus withEnd(long e) {
            return new PartitionStatus(delivered, Math.max(end, e));
        }

        long lag() {
            return Math.max(0, end - delivered);
        }
    }
}
