package dev.corobridge.demo.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.core.ResolvableType;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.MediaType;
import org.springframework.http.codec.EncoderHttpMessageWriter;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.http.codec.json.JacksonJsonEncoder;

import com.sun.management.ThreadMXBean;

/**
 * The service's JSON encoder reuses Jackson's write buffers from one answer to the next on a thread.
 * Spring's encoder takes a second buffer recycler from the factory's pool for its output builder
 * and never gives it back; with Jackson 3's default pool (a shared deque) that leaves every answer
 * a fresh recycler, so each one allocated its 8 KB encoding and 4 KB concatenation buffers anew
 * (about a quarter of all the bytes a ping allocated). Not a timing: the bytes the encoding thread
 * allocates, which the JVM counts exactly.
 */
class JsonEncoderBuffersTest extends LiveServiceTestBase {

    private static final int ROUNDS = 200;

    @Autowired
    ServerCodecConfigurer codecs;

    @Test
    void anAnswerEncodedAgainOnTheSameThreadAllocatesNoNewBuffers() {
        JacksonJsonEncoder encoder = codecs.getWriters().stream()
                .filter(EncoderHttpMessageWriter.class::isInstance)
                .map(w -> ((EncoderHttpMessageWriter<?>) w).getEncoder())
                .filter(JacksonJsonEncoder.class::isInstance).map(JacksonJsonEncoder.class::cast)
                .findFirst().orElseThrow();
        Map<String, Object> value = Map.of("ok", true);
        ResolvableType type = ResolvableType.forInstance(value);
        for (int i = 0; i < ROUNDS; i++) {   // warm: class loading, the writer's caches, the JIT's first tiers
            encode(encoder, value, type);
        }
        ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < ROUNDS; i++) {
            encode(encoder, value, type);
        }
        long perAnswer = (threads.getCurrentThreadAllocatedBytes() - before) / ROUNDS;
        // An answer's own objects (writer, generator, context, the output array) are ~1-2 KB; the two
        // buffers alone would be 12 KB.
        assertThat(perAnswer).as("bytes allocated per encoded answer").isLessThan(6_000);
    }

    private static void encode(JacksonJsonEncoder encoder, Object value, ResolvableType type) {
        DataBuffer out = encoder.encodeValue(value, DefaultDataBufferFactory.sharedInstance, type, MediaType.APPLICATION_JSON, null);
        assertThat(out.readableByteCount()).isEqualTo("{\"ok\":true}".length());
        DataBufferUtils.release(out);
    }
}
