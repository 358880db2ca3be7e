package dev.corobridge.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.spi.ToolProvider;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The streams are built on the sync primitives' channel machinery, never the other way round:
 * {@code dev.corobridge.sync} may use {@code dev.corobridge.stream} (an {@code AsyncChannel}'s
 * {@code nextAsync()} returns a {@link Next}), and {@code stream} does not use {@code sync}, so
 * the two packages form no cycle. Read from the compiled classes with the JDK's jdeps.
 */
class PackageCycleTest {

    private static final Pattern EDGE = Pattern.compile("^\\s*(dev\\.corobridge\\.[\\w.]+)\\s+->\\s+(dev\\.corobridge\\.[\\w.]+)\\s", Pattern.MULTILINE);

    @Test
    void streamDoesNotDependOnSync() throws Exception {
        Path classes = Path.of(Next.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        ToolProvider jdeps = ToolProvider.findFirst("jdeps").orElseThrow();
        StringWriter out = new StringWriter();
        int rc = jdeps.run(new PrintWriter(out), new PrintWriter(out), "-verbose:package", "-filter:none",
                "--multi-release", "21", classes.toString());
        assertEquals(0, rc, out.toString());
        Set<String> edges = new TreeSet<>();
        Matcher m = EDGE.matcher(out.toString());
        while (m.find()) {
            edges.add(m.group(1) + " -> " + m.group(2));
        }
        assertTrue(edges.contains("dev.corobridge.sync -> dev.corobridge.stream"),
                "jdeps output not understood (or sync no longer uses stream): " + edges);
        assertFalse(edges.contains("dev.corobridge.stream -> dev.corobridge.sync"), "stream uses sync: " + edges);
    }
}
