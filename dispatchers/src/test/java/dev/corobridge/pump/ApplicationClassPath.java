package dev.corobridge.pump;

import java.io.File;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The class path an application that depends on corobridge-dispatchers has: this test run's class
 * path without the test classes (and their resources, such as the test-only Main dispatcher
 * registration) and without kotlinx-coroutines-test (whose TestMainDispatcher would stand in
 * front of {@code Dispatchers.Main}).
 */
final class ApplicationClassPath {

    private ApplicationClassPath() {
    }

    /** The entries, in class path order. */
    static List<String> entries() {
        List<String> all = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(e -> !e.isBlank()).toList();
        if (all.stream().noneMatch(e -> e.contains("kotlinx-coroutines-core"))) {
            throw new IllegalStateException("unexpected test class path: " + all);
        }
        List<String> app = new ArrayList<>();
        for (String e : all) {
            String normalized = e.replace(File.separatorChar, '/');
            if (!normalized.contains("/test-classes") && !normalized.contains("kotlinx-coroutines-test")) {
                app.add(e);
            }
        }
        return app;
    }

    /** A class loader of its own over {@link #entries()}, its parent the platform loader. */
    static URLClassLoader loader(String name) {
        List<URL> urls = new ArrayList<>();
        for (String e : entries()) {
            try {
                urls.add(new File(e).toURI().toURL());
            } catch (MalformedURLException ex) {
                throw new IllegalArgumentException(e, ex);
            }
        }
        return new URLClassLoader(name, urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
    }
}
