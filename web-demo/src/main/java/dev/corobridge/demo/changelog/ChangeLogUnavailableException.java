package dev.corobridge.demo.changelog;

/**
 * A change log that cannot take changes for now (its brokers are unreachable, or did not
 * acknowledge in time) and will again by itself: the change was refused, or its outcome is unknown,
 * and the client may retry. The cause of the {@code UNAVAILABLE} refusal the writer gets. The log
 * reports the outage itself (health DOWN, a rate-limited WARN line), so the service does not log
 * each refused request as an error.
 */
public class ChangeLogUnavailableException extends RuntimeException {

    public ChangeLogUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
