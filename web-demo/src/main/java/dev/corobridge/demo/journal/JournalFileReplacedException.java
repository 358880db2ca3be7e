package dev.corobridge.demo.journal;

import java.io.IOException;

/**
 * The journal's file, or its claim's lock file, is no longer the one at its path (removed, moved or
 * replaced while the service ran): what the journal would acknowledge now goes where no restart
 * reads it, or where a second service may write too. Its message names what happened, not the path
 * (it is the reason of the clients' 503).
 */
public class JournalFileReplacedException extends IOException {

    public JournalFileReplacedException(String what) {
        super(what);
    }
}
