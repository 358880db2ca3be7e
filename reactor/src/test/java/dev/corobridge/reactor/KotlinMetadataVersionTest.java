package dev.corobridge.reactor;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;

import org.junit.jupiter.api.Test;

/**
 * The published Kotlin classes are readable by the Kotlin of Spring Boot's BOM (2.2): a Boot user's
 * build resolves that kotlin-stdlib unless it imports Kotlin's own BOM first, and a compiler reads
 * class metadata of at most one version above its own. The parent pom compiles every module with
 * language and API version 2.2 ({@code kotlin.compatible.version}); this checks what came out, on
 * a class of this module.
 */
class KotlinMetadataVersionTest {

    @Test
    void theCompiledMetadataIsKotlin22() {
        int[] mv = SubscriberContexts.class.getAnnotation(kotlin.Metadata.class).mv();
        assertTrue(mv.length >= 2 && mv[0] == 2 && mv[1] <= 2, "metadata version " + Arrays.toString(mv));
    }
}
