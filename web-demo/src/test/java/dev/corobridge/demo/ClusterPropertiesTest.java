package dev.corobridge.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/**
 * {@code demo.store}, {@code demo.replica-id} and {@code demo.kafka.*} as Spring binds them: the
 * journal stays the default, cluster mode's defaults, and a bad value stops the start naming the
 * property.
 */
class ClusterPropertiesTest {

    private static DemoProperties bind(Map<String, String> values) {
        return new Binder(new MapConfigurationPropertySource(values)).bindOrCreate("demo", DemoProperties.class);
    }

    private static String failure(Map<String, String> values) {
        Throwable t = org.assertj.core.api.Assertions.catchThrowable(() -> bind(values));
        assertThat(t).isInstanceOf(BindException.class);
        Throwable root = t;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        return root.getMessage();
    }

    @Test
    void theJournalIsTheDefaultAndNeedsNoKafkaSetting() {
        DemoProperties p = bind(Map.of());
        assertThat(p.store()).isEqualTo(DemoProperties.Store.JOURNAL);
        assertThat(p.clusterMode()).isFalse();
        assertThat(p.replicaId()).matches("[A-Za-z0-9._-]{1,64}");
        assertThat(p.kafka().topic()).isEqualTo("notes-board-changes");
        assertThat(p.kafka().partitions()).isEqualTo(8);
        assertThat(p.kafka().replicationFactor()).as("the brokers' default").isNull();
        assertThat(p.kafka().minInsyncReplicas()).as("the brokers' default").isNull();
    }

    @Test
    void clusterModeBindsItsSettings() {
        DemoProperties p = bind(Map.of("demo.store", "kafka", "demo.kafka.bootstrap-servers", "k1:9092,k2:9092",
                "demo.replica-id", "replica-2", "demo.kafka.replication-factor", "3", "demo.kafka.min-insync-replicas", "2",
                "demo.kafka.partitions", "16", "demo.kafka.snapshot-interval", "10s"));
        assertThat(p.clusterMode()).isTrue();
        assertThat(p.replicaId()).isEqualTo("replica-2");
        assertThat(p.kafka().bootstrapServers()).isEqualTo("k1:9092,k2:9092");
        assertThat(p.kafka().replicationFactor()).isEqualTo((short) 3);
        assertThat(p.kafka().minInsyncReplicas()).isEqualTo(2);
        assertThat(p.kafka().partitions()).isEqualTo(16);
        assertThat(p.snapshotFile()).isEqualTo(p.dataDir().resolve("boards.snapshot"));
    }

    @Test
    void badValuesNameTheProperty() {
        assertThat(failure(Map.of("demo.store", "kafka"))).contains("demo.kafka.bootstrap-servers");
        assertThat(failure(Map.of("demo.store", "kafka", "demo.kafka.bootstrap-servers", " "))).contains(
                "demo.kafka.bootstrap-servers");
        for (String servers : new String[] {"localhost", "a:b", "127.0.0.1:99999", "k1:0", "k1:9092,", ":9092",
                "k1:9092,k 2:9092", "http://k1:9092"}) {
            assertThat(failure(Map.of("demo.store", "kafka", "demo.kafka.bootstrap-servers", servers)))
                    .as(servers).contains("demo.kafka.bootstrap-servers").contains(servers.strip());
        }
        assertThat(bind(Map.of("demo.store", "kafka", "demo.kafka.bootstrap-servers", " k1:9092, 10.0.0.2:19092,[::1]:9093 "))
                .kafka().bootstrapServers()).isEqualTo("k1:9092,10.0.0.2:19092,[::1]:9093");
        assertThat(failure(Map.of("demo.replica-id", "a b"))).contains("demo.replica-id");
        // Given but empty (e.g. an unset variable in a launch script): refused, not replaced by the
        // host name, which two replicas on one host would then share.
        assertThat(failure(Map.of("demo.replica-id", ""))).contains("demo.replica-id");
        assertThat(failure(Map.of("demo.replica-id", "  "))).contains("demo.replica-id");
        assertThat(failure(Map.of("demo.kafka.partitions", "0"))).contains("demo.kafka.partitions");
        assertThat(failure(Map.of("demo.kafka.topic", "a/b"))).contains("demo.kafka.topic");
        assertThat(failure(Map.of("demo.kafka.replication-factor", "3", "demo.kafka.min-insync-replicas", "4")))
                .contains("demo.kafka.min-insync-replicas");
        assertThat(failure(Map.of("demo.kafka.replication-factor", "0"))).contains("demo.kafka.replication-factor");
        // Without a replication factor the check against it cannot be made: a topic created with more
        // in-sync replicas than it has refuses every write.
        assertThat(failure(Map.of("demo.kafka.min-insync-replicas", "4")))
                .contains("demo.kafka.min-insync-replicas").contains("demo.kafka.replication-factor");
        assertThat(failure(Map.of("demo.kafka.append-timeout", "10ms"))).contains("demo.kafka.append-timeout");
        assertThat(failure(Map.of("demo.kafka.snapshot-interval", "100ms"))).contains("demo.kafka.snapshot-interval");
        assertThatThrownBy(() -> bind(Map.of("demo.store", "zookeeper"))).isInstanceOf(BindException.class);
    }
}
