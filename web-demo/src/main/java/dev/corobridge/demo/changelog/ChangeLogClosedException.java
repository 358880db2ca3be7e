package dev.corobridge.demo.changelog;

/**
 * An append a {@link ChangeLog} did not take because it is closing or closed, or the engine under
 * it has shut down: the change was not acknowledged. The service is stopping; the log has not
 * failed (a failed log refuses changes with a failure of its own and reports itself down).
 */
public class ChangeLogClosedException extends IllegalStateException {

    public ChangeLogClosedException(String message) {
        super(message);
    }
}
