package dev.corobridge.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.health.application.DiskSpaceHealthIndicator;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The service's health watches the free space of the disk that holds the journal (its data
 * directory), not of the directory it was started from: a journal that runs out of space fails
 * every write from then on, so the health is to say so before. It watched the working directory,
 * which is often another disk (the data directory is one setting away).
 *
 * <p>The nearly full disk is a 2 MiB tmpfs (below Boot's 10 MB threshold) mounted for the test;
 * where mounting is not allowed (no root, a restricted container) that half is skipped.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class DataDiskHealthTest {

    private static SmallDisk disk;

    @DynamicPropertySource
    static void smallDisk(DynamicPropertyRegistry r) throws Exception {
        disk = SmallDisk.mount("small-data-disk", "2m");
        r.add("demo.data-dir", () -> disk.path().resolve("data").toString());
    }

    @AfterAll
    static void unmount() {
        disk.close();
    }

    @LocalServerPort
    int port;

    @Autowired
    DiskSpaceHealthIndicator diskSpace;

    @Test
    void theDiskSpaceHealthWatchesTheDataDirectory() {
        Object path = diskSpace.health(true).getDetails().get("path");
        assertThat(path).isInstanceOf(String.class);
        assertThat(new File((String) path).getAbsoluteFile().toPath().normalize())
                .isEqualTo(disk.path().resolve("data").toAbsolutePath().normalize());
    }

    @Test
    void aDataDiskAlmostFullMakesTheServiceUnhealthy() throws Exception {
        assumeTrue(disk.mounted(), SmallDisk.NEEDS);
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        HttpResponse<String> health = http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/actuator/health"))
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(health.statusCode()).as(health.body()).isEqualTo(503);
        assertThat(health.body()).contains("\"DOWN\"");
        // The journal itself works: the disk is not full, only below the health's threshold.
        HttpResponse<String> made = http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/api/boards"))
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString("{\"name\":\"small disk\"}")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(made.statusCode()).as(made.body()).isEqualTo(201);
    }
}
