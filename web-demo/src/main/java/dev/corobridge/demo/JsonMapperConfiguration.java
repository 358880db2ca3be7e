package dev.corobridge.demo;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.jackson.autoconfigure.JsonMapperBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Scope;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.util.JsonRecyclerPools;
import tools.jackson.databind.json.JsonMapper;

/**
 * The service's {@link JsonMapper} builder: Spring Boot's, with every {@link JsonMapperBuilderCustomizer}
 * applied in order as Boot applies them, but on a {@link JsonFactory} whose buffer recyclers are
 * per thread.
 *
 * <p>Why: WebFlux's JSON encoder takes one recycler from the factory's pool for its output
 * builder and another for the generator, and gives only the generator's back. With Jackson 3's
 * default pool, a shared deque, the next answer's generator then gets a recycler without buffers,
 * so every answer allocated an 8 KB encoding and a 4 KB concatenation buffer anew (about a quarter
 * of the bytes a ping allocated). With a recycler per thread both users share the thread's one,
 * nothing needs giving back, and the buffers are reused: the pool Jackson 2 had by default. The
 * encoders and decoders run on the HTTP event loops, a handful of platform threads.
 *
 * <p>Spring Boot's own builder backs off when this one is there ({@code @ConditionalOnMissingBean});
 * its {@code JsonMapper} is built from this builder.
 */
@Configuration(proxyBeanMethods = false)
public class JsonMapperConfiguration {

    /** A fresh builder per injection point, as Boot's is. */
    @Bean
    @Scope("prototype")
    JsonMapper.Builder threadRecyclingJsonMapperBuilder(ObjectProvider<JsonMapperBuilderCustomizer> customizers) {
        JsonMapper.Builder builder = new JsonMapper.Builder(
                JsonFactory.builder().recyclerPool(JsonRecyclerPools.threadLocalPool()).build());
        customizers.orderedStream().forEach(c -> c.customize(builder));
        return builder;
    }
}
