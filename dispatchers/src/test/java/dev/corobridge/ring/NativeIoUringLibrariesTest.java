package dev.corobridge.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/**
 * The io_uring native libraries that come with corobridge-dispatchers: one per Linux architecture
 * we support, so that an ARM server gets the ring transport rather than the fallback. The test's
 * class path holds what a user of the module gets (runtime dependencies are transitive).
 */
class NativeIoUringLibrariesTest {

    @Test
    void theClassPathCarriesTheIoUringLibraryForX86_64AndAarch64() throws IOException {
        Set<String> arches = new TreeSet<>();
        List<String> libraries = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (!entry.endsWith(".jar")) {
                continue;
            }
            try (JarFile jar = new JarFile(entry)) {
                jar.stream().map(e -> e.getName())
                        .filter(n -> n.startsWith("META-INF/native/libnetty_transport_native_io_uring") && n.endsWith(".so"))
                        .forEach(n -> {
                            libraries.add(n);
                            // libnetty_transport_native_io_uring42_aarch_64.so -> aarch_64
                            String stem = n.substring(n.lastIndexOf('/') + 1, n.length() - ".so".length());
                            String afterVersion = stem.substring("libnetty_transport_native_io_uring".length());
                            arches.add(afterVersion.substring(afterVersion.indexOf('_') + 1));
                        });
            }
        }
        assertEquals(new TreeSet<>(Set.of("aarch_64", "x86_64")), arches,
                "architectures of the io_uring native libraries on the class path: " + libraries);
        assertEquals(arches.size(), libraries.size(), "one library per architecture: " + libraries);
    }
}
