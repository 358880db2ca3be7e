package dev.corobridge.demo.board;

/**
 * A request the boards cannot carry out, with the reason as a {@link Kind}; the web layer turns it
 * into RFC 7807 problem JSON with the kind's HTTP status. Nothing was changed when it is thrown.
 */
public final class BoardException extends RuntimeException {

    /** Why; each with the HTTP status the web layer answers with. */
    public enum Kind {
        /** The request is malformed or a field is invalid. */
        INVALID(400, "Bad Request"),
        /** The board or note does not exist. */
        NOT_FOUND(404, "Not Found"),
        /** The expected version is stale. */
        CONFLICT(409, "Conflict"),
        /** The service cannot take changes now (shutting down, journal failed). */
        UNAVAILABLE(503, "Service Unavailable");

        private final int status;
        private final String title;

        Kind(int status, String title) {
            this.status = status;
            this.title = title;
        }

        /** The HTTP status. */
        public int status() {
            return status;
        }

        /** The problem title. */
        public String title() {
            return title;
        }
    }

    private final Kind kind;

    public BoardException(Kind kind, String detail) {
        super(detail);
        this.kind = kind;
    }

    public BoardException(Kind kind, String detail, Throwable cause) {
        super(detail, cause);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }

    static BoardException noBoard(String boardId) {
        return new BoardException(Kind.NOT_FOUND, "no board '" + boardId + "'");
    }

    static BoardException noNote(String boardId, String noteId) {
        return new BoardException(Kind.NOT_FOUND, "no note '" + noteId + "' on board '" + boardId + "'");
    }
}
