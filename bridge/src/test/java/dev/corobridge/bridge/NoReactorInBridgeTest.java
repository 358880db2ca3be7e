package dev.corobridge.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * bridge depends on kotlinx-coroutines-core alone: Reactor and Reactive Streams live in
 * corobridge-reactor, so a user of bridge does not get them.
 */
class NoReactorInBridgeTest {

    @Test
    void theClassPathHasNoReactorAndNoReactiveStreams() {
        List<String> found = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(e -> e.contains("reactor") || e.contains("reactive-streams"))
                .toList();
        assertEquals(List.of(), found);
    }

    @Test
    void noMainClassRefersToReactorOrReactiveStreams() throws IOException, URISyntaxException {
        Path classes = Path.of(Task.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<String> referring;
        try (Stream<Path> files = Files.walk(classes)) {
            referring = files.filter(p -> p.toString().endsWith(".class")).filter(NoReactorInBridgeTest::refersToReactor)
                    .map(p -> classes.relativize(p).toString()).toList();
        }
        assertEquals(List.of(), referring);
    }

    private static boolean refersToReactor(Path classFile) {
        try {
            // Class names in the constant pool are UTF-8 (ISO-8859-1 keeps every byte as one char).
            String bytes = new String(Files.readAllBytes(classFile), StandardCharsets.ISO_8859_1);
            return bytes.contains("reactor/core/") || bytes.contains("org/reactivestreams/")
                    || bytes.contains("kotlinx/coroutines/reactive/") || bytes.contains("kotlinx/coroutines/reactor/");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
