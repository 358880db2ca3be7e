package dev.corobridge.demo.web;

import org.springframework.http.HttpStatus;
import org.springframework.web.server.ResponseStatusException;

/** A request body larger than {@code demo.max-body}: 413. */
public final class PayloadTooLargeException extends ResponseStatusException {

    public PayloadTooLargeException(long limit) {
        super(HttpStatus.CONTENT_TOO_LARGE, "the request body is larger than " + limit + " bytes");
    }
}
