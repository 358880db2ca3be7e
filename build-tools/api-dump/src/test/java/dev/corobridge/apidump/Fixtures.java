package dev.corobridge.apidump;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import dev.corobridge.apidump.fixture.javacode.PublicJava;

/** The compiled fixture classes (src/test/{java,kotlin}/.../fixture) and helpers to read their dump. */
final class Fixtures {

    private Fixtures() {
    }

    /** target/test-classes/dev/corobridge/apidump/fixture: the Java and Kotlin fixture classes. */
    static Path classesDir() {
        try {
            Path testClasses = Path.of(PublicJava.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return testClasses.resolve("dev/corobridge/apidump/fixture");
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The member lines (without indentation) of the dumped class {@code binaryName}, or null if it is not dumped. */
    static List<String> block(String dump, String binaryName) {
        List<String> lines = dump.lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (!line.startsWith(" ") && line.endsWith(" {") && declares(line, binaryName)) {
                List<String> members = new ArrayList<>();
                for (int j = i + 1; !lines.get(j).equals("}"); j++) {
                    members.add(lines.get(j).substring(2));
                }
                return members;
            }
        }
        return null;
    }

    /** The header line of the dumped class {@code binaryName}, or null. */
    static String header(String dump, String binaryName) {
        return dump.lines().filter(line -> !line.startsWith(" ") && line.endsWith(" {") && declares(line, binaryName))
                .findFirst().orElse(null);
    }

    private static boolean declares(String header, String binaryName) {
        for (String kind : List.of("class ", "interface ", "enum ", "record ", "@interface ")) {
            int at = header.indexOf(kind + binaryName);
            if (at >= 0) {
                int end = at + kind.length() + binaryName.length();
                char next = header.charAt(end);
                return next == ' ' || next == '<';
            }
        }
        return false;
    }
}
