package dev.corobridge.demo.board;

/**
 * Ends an event stream whose subscriber fell more than {@code demo.event-buffer} events behind: the
 * stream's buffered events are dropped with it (the memory is not held for a client that does not
 * read), and the web layer closes the subscriber's connection, so that it reconnects and starts
 * from a fresh snapshot. A signal, not a fault: no stack trace.
 */
public final class SubscriberFellBehindException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** @param buffer how many undelivered events the subscriber may have */
    public SubscriberFellBehindException(int buffer) {
        super("the subscriber fell more than " + buffer + " events behind", null, false, false);
    }
}
