package dev.corobridge.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The disk metrics watch the data directory's disk, as the health does, under the tag
 * {@code path="data-dir"}: the metrics endpoints are as open as the health's status, and the
 * directory's path is the operator's business (API.md hides it from the health for that reason).
 * They watched the working directory and named its absolute path to anyone.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class DiskMetricsTest {

    private static final Path DATA = TestData.directory("disk-metrics").resolve("data");

    @org.springframework.test.context.DynamicPropertySource
    static void dataDir(org.springframework.test.context.DynamicPropertyRegistry r) {
        r.add("demo.data-dir", DATA::toString);
    }

    @LocalServerPort
    int port;

    @Test
    void theDiskMetricsWatchTheDataDirectoryWithoutNamingAnyPath() throws Exception {
        String scrape = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://localhost:" + port
                + "/actuator/prometheus")).timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString()).body();
        assertThat(scrape).contains("disk_free_bytes{path=\"data-dir\"}").contains("disk_total_bytes{path=\"data-dir\"}");
        assertThat(scrape).doesNotContain(System.getProperty("user.dir")).doesNotContain(DATA.toString());
    }
}
