package dev.corobridge.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * What publishing ships, checked on the jars this build packaged (failsafe runs after every module's
 * {@code package}): every artifact that corobridge-bom lists has its JPMS name in its manifest
 * ({@code Automatic-Module-Name}), a sources jar with every main source (Java and Kotlin, KDoc
 * included), a javadoc jar with a page per public Java type; the libraries' poms import no
 * Spring Boot or Vert.x BOM; the poms carry the licence, SCM and developer metadata. A new
 * published module shows up here through the BOM.
 */
class PublishedArtifactsIT {

    /** Every published artifact and its module name: the BOM must list exactly these. */
    private static final Map<String, String> MODULE_NAMES = new TreeMap<>(Map.of(
            "corobridge-bridge", "dev.corobridge.bridge",
            "corobridge-reactor", "dev.corobridge.reactor",
            "corobridge-dispatchers", "dev.corobridge.dispatchers",
            "corobridge-main", "dev.corobridge.main",
            "corobridge-test", "dev.corobridge.test",
            "corobridge-spring-boot-starter", "dev.corobridge.spring"));

    private final Path root = Path.of(System.getProperty("it.repo.root", "..")).toAbsolutePath().normalize();

    @Test
    void theBomListsEveryPublishedArtifactAtTheProjectVersion() throws Exception {
        Document bom = parse(root.resolve("bom/pom.xml"));
        Map<String, String> managed = new TreeMap<>();
        for (Element d : elements(bom, "dependency")) {
            managed.put(text(d, "artifactId"), text(d, "version"));
        }
        assertThat(managed.keySet()).containsExactlyElementsOf(MODULE_NAMES.keySet());
        assertThat(new TreeSet<>(managed.values())).containsExactly("${project.version}");
        assertThat(text(bom.getDocumentElement(), "version")).isEqualTo(projectVersion());
        assertThat(bom.getElementsByTagName("parent").getLength()).as("the BOM has no parent").isZero();
    }

    @Test
    void everyPublishedJarCarriesItsModuleNameAndComesWithSourcesAndJavadoc() throws Exception {
        String version = projectVersion();
        for (Map.Entry<String, String> e : MODULE_NAMES.entrySet()) {
            String artifact = e.getKey();
            Path module = moduleDirectory(artifact);
            Path target = module.resolve("target");
            Path jar = target.resolve(artifact + "-" + version + ".jar");
            assertThat(jar).as(artifact + " was packaged").exists();
            try (JarFile j = new JarFile(jar.toFile())) {
                assertThat(j.getManifest().getMainAttributes().getValue("Automatic-Module-Name"))
                        .as(artifact + "'s Automatic-Module-Name").isEqualTo(e.getValue());
            }

            Set<String> sources = mainSources(module);
            assertThat(sources).as(artifact + " has sources").isNotEmpty();
            try (JarFile j = new JarFile(target.resolve(artifact + "-" + version + "-sources.jar").toFile())) {
                Set<String> entries = new TreeSet<>();
                j.stream().forEach(x -> entries.add(x.getName()));
                assertThat(entries).as(artifact + "'s sources jar").containsAll(sources);
            }

            try (JarFile j = new JarFile(target.resolve(artifact + "-" + version + "-javadoc.jar").toFile())) {
                // javadoc lays pages out under the module name (the manifest's): strip that level.
                String modulePrefix = e.getValue() + "/";
                Set<String> entries = new TreeSet<>();
                j.stream().map(x -> x.getName()).forEach(n -> entries.add(n.startsWith(modulePrefix) ? n.substring(modulePrefix.length()) : n));
                assertThat(entries).as(artifact + "'s javadoc jar").contains("index.html").containsAll(publicJavaTypePages(module));
            }
        }
    }

    @Test
    void theLibrariesAndTheirParentImportNoSpringBootAndNoVertxBom() throws Exception {
        for (String pom : List.of("pom.xml", "bom/pom.xml", "bridge/pom.xml", "reactor/pom.xml", "dispatchers/pom.xml",
                "main-dispatcher/pom.xml", "test-kit/pom.xml")) {
            List<String> imported = new ArrayList<>();
            for (Element d : elements(parse(root.resolve(pom)), "dependency")) {
                if (d.getElementsByTagName("scope").getLength() > 0 && "import".equals(text(d, "scope"))) {
                    imported.add(text(d, "artifactId"));
                }
            }
            assertThat(imported).as(pom + " imports").doesNotContain("spring-boot-dependencies", "vertx-stack-depchain");
        }
    }

    @Test
    void thePomsCarryThePublishingMetadataAndTheLicenseIsThere() throws Exception {
        for (String pom : List.of("pom.xml", "bom/pom.xml")) {
            Element project = parse(root.resolve(pom)).getDocumentElement();
            assertThat(text(project, "url")).as(pom + " url").startsWith("https://");
            for (String tag : List.of("licenses", "developers", "scm")) {
                assertThat(project.getElementsByTagName(tag).getLength()).as(pom + " <" + tag + ">").isEqualTo(1);
            }
            assertThat(text((Element) project.getElementsByTagName("license").item(0), "name")).isEqualTo("Apache-2.0");
        }
        assertThat(Files.readString(root.resolve("LICENSE"))).contains("Apache License", "Version 2.0, January 2004",
                "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION", "END OF TERMS AND CONDITIONS");
        assertThat(root.resolve("CHANGELOG.md")).exists();
        assertThat(root.resolve("CONTRIBUTING.md")).exists();
    }

    private String projectVersion() throws Exception {
        return text(parse(root.resolve("pom.xml")).getDocumentElement(), "version");
    }

    /** The directory of the module whose pom declares {@code artifactId}. */
    private Path moduleDirectory(String artifactId) throws Exception {
        try (Stream<Path> dirs = Files.list(root)) {
            for (Path dir : dirs.filter(d -> Files.isRegularFile(d.resolve("pom.xml"))).toList()) {
                if (artifactId.equals(text(parse(dir.resolve("pom.xml")).getDocumentElement(), "artifactId"))) {
                    return dir;
                }
            }
        }
        throw new AssertionError("no module declares " + artifactId);
    }

    /** Paths, relative to their source root, of every Java and Kotlin main source. */
    private static Set<String> mainSources(Path module) throws IOException {
        Set<String> out = new TreeSet<>();
        for (String lang : List.of("java", "kotlin")) {
            Path src = module.resolve("src/main").resolve(lang);
            if (Files.isDirectory(src)) {
                try (Stream<Path> files = Files.walk(src)) {
                    files.filter(p -> p.toString().endsWith(".java") || p.toString().endsWith(".kt"))
                            .forEach(p -> out.add(src.relativize(p).toString().replace('\\', '/')));
                }
            }
        }
        return out;
    }

    /** {@code dev/corobridge/x/Type.html} for each Java source that declares a public top-level type. */
    private static List<String> publicJavaTypePages(Path module) throws IOException {
        List<String> pages = new ArrayList<>();
        Path src = module.resolve("src/main/java");
        if (!Files.isDirectory(src)) {
            return pages;
        }
        try (Stream<Path> files = Files.walk(src)) {
            for (Path p : files.filter(f -> f.toString().endsWith(".java") && !f.endsWith("package-info.java")).toList()) {
                if (Files.readAllLines(p).stream().anyMatch(l -> l.matches("public (final |abstract |sealed |non-sealed )*(class|interface|record|enum|@interface) .*"))) {
                    String rel = src.relativize(p).toString().replace('\\', '/');
                    pages.add(rel.substring(0, rel.length() - ".java".length()) + ".html");
                }
            }
        }
        return pages;
    }

    private static Document parse(Path pom) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
    }

    private static List<Element> elements(Document doc, String tag) {
        NodeList nodes = doc.getElementsByTagName(tag);
        List<Element> out = new ArrayList<>();
        for (int i = 0; i < nodes.getLength(); i++) {
            out.add((Element) nodes.item(i));
        }
        return out;
    }

    /** The text of {@code parent}'s direct child {@code tag}. */
    private static String text(Element parent, String tag) {
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element el && el.getTagName().equals(tag)) {
                return el.getTextContent().trim();
            }
        }
        throw new AssertionError("<" + parent.getTagName() + "> has no <" + tag + ">");
    }
}
