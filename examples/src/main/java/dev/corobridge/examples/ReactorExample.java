package dev.corobridge.examples;

import dev.corobridge.bridge.Task;
import dev.corobridge.pump.MessagePump;
import dev.corobridge.reactor.FlowPublishers;
import dev.corobridge.reactor.TaskMono;
import java.util.List;
import java.util.concurrent.Executor;
import kotlinx.coroutines.flow.Flow;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** The reactor README's Java example, compiled. */
public final class ReactorExample {

    private ReactorExample() {
    }

    static void conversions(MessagePump pump, Executor eventLoop, Publisher<String> names, Flow<String> quotes) {
        // snippet-begin: reactor-java
        Task<List<String>> board = Task.start(pump, () -> List.of("a", "b"));
        Mono<List<String>> m = TaskMono.toMono(board);              // signals where the task completes
        Mono<List<String>> a = TaskMono.toMono(board, eventLoop);   // signals through eventLoop
        Mono<List<String>> d = TaskMono.defer(() -> Task.start(pump, () -> List.of("c")));  // per subscription
        Task<String> first = TaskMono.toTask(names);         // first element, null if empty
        Flux<String> flux = FlowPublishers.toFlux(quotes);          // a Kotlin Flow, with back-pressure
        Flow<String> flow = FlowPublishers.toFlow(flux);     // and back
        // snippet-end: reactor-java
    }
}
