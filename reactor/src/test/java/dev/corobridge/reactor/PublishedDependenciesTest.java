package dev.corobridge.reactor;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * What a Maven user of this module resolves. Maven picks the nearest version of a transitive
 * dependency, and a user's build applies no dependency management of ours to the dependencies of
 * our dependencies: kotlinx-coroutines-reactor's pom asks for reactor-core 3.4.1, so a user without
 * a Reactor BOM of their own got that version (and reactive-streams 1.0.3) unless this module's
 * pom names reactor-core itself, where the parent's pinned Reactor BOM gives its version. This
 * module's own tests cannot show the difference (the build applies the BOM everywhere), so the
 * published pom is read instead.
 */
class PublishedDependenciesTest {

    @Test
    void theModulesPomNamesReactorCoreItselfSoThatUsersGetThePinnedReactor() throws Exception {
        String pom = Files.readString(Path.of("pom.xml"));
        String dependencies = pom.substring(pom.indexOf("<dependencies>"), pom.indexOf("</dependencies>"));
        assertTrue(Pattern.compile("<groupId>io\\.projectreactor</groupId>\\s*<artifactId>reactor-core</artifactId>\\s*</dependency>")
                .matcher(dependencies).find(), "reactor-core is a direct, unscoped dependency of " + Path.of("pom.xml").toAbsolutePath());
    }
}
