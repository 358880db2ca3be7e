package dev.corobridge.sideeffects;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * Run by {@link ClassLoadSideEffectsTest} in a JVM of its own: loads and initialises every class in
 * the given class directories or jars, then prints one line per side effect it sees —
 * {@code property <name>=<value>} for a system property set or changed, {@code thread <name>}
 * for a thread started — and {@code loaded <n>}, {@code init-failed <class>: <error>} as a record.
 */
public final class ClassLoadProbe {

    private ClassLoadProbe() {
    }

    public static void main(String[] args) throws IOException {
        Map<String, String> propertiesBefore = properties();
        Set<Thread> threadsBefore = new HashSet<>(Thread.getAllStackTraces().keySet());
        int loaded = 0;
        List<String> failed = new ArrayList<>();
        ClassLoader loader = ClassLoadProbe.class.getClassLoader();
        for (String location : args) {
            for (String name : classNames(Path.of(location))) {
                try {
                    Class.forName(name, true, loader);
                    loaded++;
                } catch (Throwable e) {
                    failed.add(name + ": " + e);
                }
            }
        }
        System.out.println("loaded " + loaded);
        failed.forEach(f -> System.out.println("init-failed " + f));
        properties().forEach((k, v) -> {
            if (!Objects.equals(propertiesBefore.get(k), v)) {
                System.out.println("property " + k + "=" + v);
            }
        });
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (!threadsBefore.contains(t)) {
                System.out.println("thread " + t.getName());
            }
        }
    }

    private static Map<String, String> properties() {
        Map<String, String> m = new HashMap<>();
        System.getProperties().forEach((k, v) -> m.put(String.valueOf(k), String.valueOf(v)));
        return m;
    }

    private static List<String> classNames(Path location) throws IOException {
        List<String> entries = new ArrayList<>();
        if (Files.isDirectory(location)) {
            try (Stream<Path> files = Files.walk(location)) {
                files.filter(p -> p.toString().endsWith(".class"))
                        .forEach(p -> entries.add(location.relativize(p).toString().replace('\\', '/')));
            }
        } else {
            try (JarFile jar = new JarFile(location.toFile())) {
                jar.stream().map(e -> e.getName()).filter(n -> n.endsWith(".class")).forEach(entries::add);
            }
        }
        return entries.stream()
                .filter(n -> !n.endsWith("module-info.class") && !n.endsWith("package-info.class") && !n.startsWith("META-INF/"))
                .map(n -> n.substring(0, n.length() - ".class".length()).replace('/', '.'))
                .sorted()
                .toList();
    }
}
