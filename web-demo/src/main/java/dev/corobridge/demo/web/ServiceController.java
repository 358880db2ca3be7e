package dev.corobridge.demo.web;

import java.util.Map;

import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import dev.corobridge.bridge.Task;
import dev.corobridge.demo.BoardService;

/** Service-wide endpoints: the no-hop baseline and live metrics for the page. */
@RestController
@RequestMapping(path = "/api", produces = MediaType.APPLICATION_JSON_VALUE)
public class ServiceController {

    private static final Map<String, Object> OK = Map.of("ok", true);

    private final BoardService boards;

    public ServiceController(BoardService boards) {
        this.boards = boards;
    }

    /** The baseline of the load benchmark: answered on the HTTP thread, no hop at all. */
    @GetMapping("/ping")
    public Map<String, Object> ping() {
        return OK;
    }

    /** Pump, ring pool and journal metrics (one pump hop). */
    @GetMapping("/live")
    public Task<Map<String, Object>> live() {
        return boards.liveMetricsAsync();
    }
}
