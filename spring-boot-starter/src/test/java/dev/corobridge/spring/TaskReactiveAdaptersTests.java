package dev.corobridge.spring;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.corobridge.bridge.Outcome;
import dev.corobridge.bridge.Promise;
import dev.corobridge.bridge.Task;
import io.micrometer.context.ContextRegistry;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;
import reactor.util.context.Context;

import static org.assertj.core.api.Assertions.assertThat;

class TaskReactiveAdaptersTests {

    private static ReactiveAdapter adapter() {
        ReactiveAdapterRegistry registry = new ReactiveAdapterRegistry();
        TaskReactiveAdapters.register(registry);
        ReactiveAdapter adapter = registry.getAdapter(Task.class);
        assertThat(adapter).isNotNull();
        return adapter;
    }

    @Test
    void aTaskIsASingleOptionalValue() {
        ReactiveAdapter adapter = adapter();
        assertThat(adapter.isMultiValue()).isFalse();
        assertThat(adapter.supportsEmpty()).isTrue();
        assertThat(adapter.getReactiveType()).isEqualTo(Task.class);
    }

    @Test
    void convertsATaskToAPublisherOfItsOutcome() {
        ReactiveAdapter adapter = adapter();
        Publisher<Object> ok = adapter.toPublisher(Task.completed("board-1"));
        StepVerifier.create(ok).expectNext("board-1").expectComplete().verify(Duration.ofSeconds(30));
        Publisher<Object> failed = adapter.toPublisher(Task.failed(new IllegalStateException("stale version")));
        StepVerifier.create(failed).expectErrorMessage("stale version").verify(Duration.ofSeconds(30));
    }

    @Test
    void convertsAPublisherToATask() throws Exception {
        Object task = adapter().fromPublisher(Mono.just("note"));
        assertThat(task).isInstanceOf(Task.class);
        assertThat(((Task<?>) task).join(Duration.ofSeconds(30))).isEqualTo("note");
    }

    @Test
    void cancellingTheSubscriptionCancelsTheTask() throws Exception {
        Task<String> task = Task.from(new CompletableFuture<String>()); // never completes by itself
        Publisher<Object> publisher = adapter().toPublisher(task);
        CompletableFuture<Outcome<String>> outcome = new CompletableFuture<>();
        task.onComplete(outcome::complete);

        Disposable subscription = Mono.from(publisher).subscribe();
        assertThat(task.isDone()).isFalse();
        subscription.dispose(); // what WebFlux does when the client disconnects

        assertThat(outcome.get(30, TimeUnit.SECONDS)).isInstanceOf(Outcome.Cancelled.class);
    }

    @Test
    void anAnswerExecutorInTheContextDeliversEveryOutcome() {
        List<Runnable> handedOver = new ArrayList<>();
        Executor answer = handedOver::add; // holds each delivery until the test runs it
        Context context = Context.of(TaskReactiveAdapters.ANSWER_EXECUTOR, answer);

        Promise<String> value = new Promise<>();
        CompletableFuture<Object> seen = new CompletableFuture<>();
        Mono.from(adapter().toPublisher(Task.from(value))).contextWrite(context)
                .subscribe(seen::complete, seen::completeExceptionally, () -> seen.complete("empty"));
        value.complete("board-1");
        assertThat(seen).isNotDone(); // not delivered on the completing thread
        assertThat(handedOver).hasSize(1);
        handedOver.removeFirst().run();
        assertThat(seen).isCompletedWithValue("board-1");

        StepVerifier.create(Mono.from(adapter().toPublisher(Task.failed(new IllegalStateException("stale version"))))
                        .contextWrite(context))
                .then(() -> handedOver.removeFirst().run())
                .expectErrorMessage("stale version").verify(Duration.ofSeconds(30));
        StepVerifier.create(Mono.from(adapter().toPublisher(Task.completed(null))).contextWrite(context))
                .then(() -> handedOver.removeFirst().run())
                .expectComplete().verify(Duration.ofSeconds(30));
        Task<String> cancelled = Task.from(new Promise<>());
        cancelled.cancel();
        StepVerifier.create(Mono.from(adapter().toPublisher(cancelled)).contextWrite(context))
                .then(() -> handedOver.removeFirst().run())
                .expectError(java.util.concurrent.CancellationException.class).verify(Duration.ofSeconds(30));
        assertThat(handedOver).isEmpty();
    }

    @Test
    void disposingCancelsTheTaskAlsoWithAnAnswerExecutor() throws Exception {
        Task<String> task = Task.from(new CompletableFuture<String>());
        CompletableFuture<Outcome<String>> outcome = new CompletableFuture<>();
        task.onComplete(outcome::complete);
        Executor answer = Runnable::run;
        Disposable subscription = Mono.from(adapter().toPublisher(task))
                .contextWrite(Context.of(TaskReactiveAdapters.ANSWER_EXECUTOR, answer)).subscribe();
        subscription.dispose();
        assertThat(outcome.get(30, TimeUnit.SECONDS)).isInstanceOf(Outcome.Cancelled.class);
    }

    /** What functional routes call: the adapter's own Mono, answering through the context's executor. */
    @Test
    void toMonoAnswersWhereAHandlersTaskWould() {
        List<Runnable> handedOver = new ArrayList<>();
        Executor answer = handedOver::add;
        Promise<String> value = new Promise<>();
        CompletableFuture<Object> seen = new CompletableFuture<>();
        TaskReactiveAdapters.toMono(Task.from(value)).contextWrite(Context.of(TaskReactiveAdapters.ANSWER_EXECUTOR, answer))
                .subscribe(seen::complete, seen::completeExceptionally);
        value.complete("note");
        assertThat(seen).isNotDone();
        handedOver.removeFirst().run();
        assertThat(seen).isCompletedWithValue("note");
        // Without an executor in the context: on the completing thread.
        StepVerifier.create(TaskReactiveAdapters.toMono(Task.completed("in place"))).expectNext("in place").expectComplete()
                .verify(Duration.ofSeconds(30));
        assertThat(handedOver).isEmpty();
        org.junit.jupiter.api.Assertions.assertThrows(NullPointerException.class, () -> TaskReactiveAdapters.toMono(null));
    }

    @Test
    void deferCreatesTheTaskWithTheSubscribersContextAndAnswersWhereAHandlersTaskWould() {
        String key = "test.starter.tenant";
        ThreadLocal<String> tenant = new ThreadLocal<>();
        ContextRegistry.getInstance().registerThreadLocalAccessor(key, tenant);
        try {
            AtomicInteger created = new AtomicInteger();
            Mono<String> deferred = TaskReactiveAdapters.defer(() -> {
                created.incrementAndGet();
                return Task.completed("for " + tenant.get());
            });
            assertThat(created).hasValue(0);
            List<Runnable> handedOver = new ArrayList<>();
            Executor answer = handedOver::add;
            CompletableFuture<Object> seen = new CompletableFuture<>();
            deferred.contextWrite(Context.of(TaskReactiveAdapters.ANSWER_EXECUTOR, answer, key, "acme"))
                    .subscribe(seen::complete, seen::completeExceptionally);
            assertThat(seen).isNotDone();
            assertThat(tenant.get()).as("the subscribing thread keeps its own value").isNull();
            handedOver.removeFirst().run();
            assertThat(seen).isCompletedWithValue("for acme");
            // Without an executor in the context: on the completing thread; one task per subscription.
            StepVerifier.create(deferred.contextWrite(Context.of(key, "globex"))).expectNext("for globex").expectComplete()
                    .verify(Duration.ofSeconds(30));
            assertThat(created).hasValue(2);
            assertThat(handedOver).isEmpty();
            StepVerifier.create(TaskReactiveAdapters.defer(() -> Task.failed(new IllegalStateException("refused"))))
                    .expectErrorMessage("refused").verify(Duration.ofSeconds(30));
            org.junit.jupiter.api.Assertions.assertThrows(NullPointerException.class, () -> TaskReactiveAdapters.defer(null));
            StepVerifier.create(TaskReactiveAdapters.defer(() -> null)).expectError(NullPointerException.class)
                    .verify(Duration.ofSeconds(30));
        } finally {
            ContextRegistry.getInstance().removeThreadLocalAccessor(key);
        }
    }

    @Test
    void thePostProcessorRegistersTaskOnTheWebFluxRegistryBean() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(CorobridgeWebFluxAutoConfiguration.class))
                .withBean("webFluxAdapterRegistry", ReactiveAdapterRegistry.class, ReactiveAdapterRegistry::new)
                .run(context -> {
                    ReactiveAdapterRegistry registry = context.getBean("webFluxAdapterRegistry", ReactiveAdapterRegistry.class);
                    assertThat(registry.getAdapter(Task.class)).isNotNull();
                    assertThat(registry.getAdapter(Task.completed(1).getClass())).isNotNull();
                });
    }
}
