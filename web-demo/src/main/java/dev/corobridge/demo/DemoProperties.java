package dev.corobridge.demo;

import java.nio.file.Path;
import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

import dev.corobridge.demo.journal.JournalRecovery;

/**
 * Settings of the notes board, under {@code demo.*}; checked when bound, so a bad value stops the
 * service at start with the property named.
 *
 * @param dataDir          directory of the journal ({@code journal.log})
 * @param maxBody          larger request bodies are refused with 413
 * @param longPollTimeout  how long {@code /changes} waits for a change at most
 * @param eventBuffer      events a slow SSE subscriber may fall behind before it is disconnected
 * @param ioTimeout        limit for one journal operation at start-up and shutdown
 * @param journal          what to do with a damaged journal ({@code demo.journal.*})
 * @param http             limits on slow clients ({@code demo.http.*})
 */
@ConfigurationProperties("demo")
public record DemoProperties(@DefaultValue("./data") Path dataDir,
                             @DefaultValue("64KB") DataSize maxBody,
                             @DefaultValue("30s") Duration longPollTimeout,
                             @DefaultValue("1024") int eventBuffer,
                             @DefaultValue("30s") Duration ioTimeout,
                             @DefaultValue JournalSettings journal,
                             @DefaultValue HttpSettings http) {

    /**
     * Limits on slow clients, under {@code demo.http.*}.
     *
     * @param headerTimeout once the first byte of a request arrived, its request line and headers
     *                      must be complete within this, or the request is answered 408 and the
     *                      connection closed (a client sending its headers a byte at a time would
     *                      otherwise hold the connection forever); 1s..10m
     * @param bodyTimeout   once a request's headers arrived, its body must be complete within this
     *                      (the whole body, however it trickles in), or the connection is closed,
     *                      after a 408 if nothing of the answer was sent yet; 1s..10m. The default
     *                      (20s) takes the default {@code demo.max-body} (64KB) at 3.2 KB/s or more:
     *                      raise it with a larger {@code demo.max-body} for slow clients
     */
    public record HttpSettings(@DefaultValue("10s") Duration headerTimeout,
                               @DefaultValue("20s") Duration bodyTimeout) {

        public HttpSettings {
            check("demo.http.header-timeout", headerTimeout);
            check("demo.http.body-timeout", bodyTimeout);
        }

        private static void check(String property, Duration timeout) {
            if (timeout.compareTo(Duration.ofSeconds(1)) < 0 || timeout.compareTo(Duration.ofMinutes(10)) > 0) {
                throw new IllegalArgumentException(property + " must be within 1s..10m, was " + timeout);
            }
        }
    }

    /**
     * Settings of the journal, under {@code demo.journal.*}.
     *
     * @param repair {@code demo.journal.repair} (environment: {@code DEMO_JOURNAL_REPAIR}): if the
     *               journal is corrupted (damage followed by intact records), keep the damaged file
     *               beside it, write a new journal holding every intact record and log what was
     *               dropped, instead of refusing to start. Off by default; turn it off again after
     *               the repair.
     */
    public record JournalSettings(@DefaultValue("false") boolean repair) {

        /** The journal's recovery for these settings. */
        public JournalRecovery recovery() {
            return repair ? JournalRecovery.REPAIR : JournalRecovery.REFUSE;
        }
    }

    public DemoProperties {
        if (maxBody.toBytes() < 1024 || maxBody.toBytes() > 16L * 1024 * 1024) {
            throw new IllegalArgumentException("demo.max-body must be within 1KB..16MB, was " + maxBody);
        }
        if (longPollTimeout.isNegative() || longPollTimeout.isZero() || longPollTimeout.toMinutes() > 10) {
            throw new IllegalArgumentException("demo.long-poll-timeout must be within (0, 10m], was " + longPollTimeout);
        }
        if (eventBuffer < 16 || eventBuffer > 1 << 20) {
            throw new IllegalArgumentException("demo.event-buffer must be within 16..1048576, was " + eventBuffer);
        }
        if (ioTimeout.isNegative() || ioTimeout.isZero()) {
            throw new IllegalArgumentException("demo.io-timeout must be positive, was " + ioTimeout);
        }
    }

    /** The journal file. */
    public Path journalFile() {
        return dataDir.resolve("journal.log");
    }
}
