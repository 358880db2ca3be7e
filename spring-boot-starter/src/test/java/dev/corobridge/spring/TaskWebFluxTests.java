package dev.corobridge.spring;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.corobridge.bridge.Outcome;
import dev.corobridge.bridge.Task;
import dev.corobridge.pump.MessagePump;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.webflux.autoconfigure.WebFluxAutoConfiguration;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.reactive.DispatcherHandler;
import reactor.core.Disposable;

import static org.assertj.core.api.Assertions.assertThat;

/** A controller returning {@code Task<T>} under Boot 4's WebFlux auto-configuration. */
class TaskWebFluxTests {

    private final ReactiveWebApplicationContextRunner runner = new ReactiveWebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(WebFluxAutoConfiguration.class, CorobridgeAutoConfiguration.class,
                    CorobridgeWebFluxAutoConfiguration.class))
            .withPropertyValues("corobridge.ring.count=1", "corobridge.ring.size=16", "corobridge.ring.force-fallback=true")
            .withUserConfiguration(TaskController.class);

    @RestController
    static class TaskController {

        final MessagePump pump;
        final CompletableFuture<Task<String>> pending = new CompletableFuture<>();

        TaskController(MessagePump pump) {
            this.pump = pump;
        }

        @GetMapping("/thread")
        Task<String> thread() {
            return Task.start(pump, () -> Thread.currentThread().getName());
        }

        @GetMapping("/never")
        Task<String> never() {
            Task<String> task = Task.from(new CompletableFuture<>());
            pending.complete(task);
            return task;
        }
    }

    @Test
    void webFluxAdapterRegistryKnowsTask() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            ReactiveAdapterRegistry registry = context.getBean("webFluxAdapterRegistry", ReactiveAdapterRegistry.class);
            assertThat(registry.getAdapter(Task.class)).isNotNull();
        });
    }

    @Test
    void aTaskReturningHandlerAnswersWithTheTasksValue() {
        runner.run(context -> {
            MockServerWebExchange exchange = MockServerWebExchange.from(MockServerHttpRequest.get("/thread"));
            context.getBean(DispatcherHandler.class).handle(exchange).block(Duration.ofSeconds(30));
            assertThat(exchange.getResponse().getBodyAsString().block(Duration.ofSeconds(30))).startsWith("corobridge-pump");
        });
    }

    @Test
    void aDisconnectCancelsTheTask() {
        runner.run(context -> {
            MockServerWebExchange exchange = MockServerWebExchange.from(MockServerHttpRequest.get("/never"));
            Disposable request = context.getBean(DispatcherHandler.class).handle(exchange).subscribe();
            Task<String> task = context.getBean(TaskController.class).pending.get(30, TimeUnit.SECONDS);
            CompletableFuture<Outcome<String>> outcome = new CompletableFuture<>();
            task.onComplete(outcome::complete);
            assertThat(task.isDone()).isFalse();

            request.dispose(); // the server cancels the response publisher when the client goes away

            assertThat(outcome.get(30, TimeUnit.SECONDS)).isInstanceOf(Outcome.Cancelled.class);
        });
    }
}
