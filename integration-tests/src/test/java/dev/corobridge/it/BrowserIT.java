package dev.corobridge.it;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.WindowType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The page in headless Chromium (Debian's chromium and chromium-driver, driven by Selenium with
 * the system driver: no download): create a board and open it in one tab, open the same board by
 * its URL hash in a second tab, add a note through the first tab and see it appear live in the
 * second; the metrics panel shows the transport. Screenshots of both tabs go to
 * {@code target/browser/}. A second test checks the page's counts, its error banner and its offline
 * state, across a restart of the service. Skipped, with a message, where Chromium or its driver is
 * not installed.
 */
class BrowserIT {

    @TempDir
    static Path data;
    @TempDir
    static Path profile;

    static DemoProcess demo;

    @BeforeAll
    static void start() {
        String chromium = System.getProperty("it.chromium", "/usr/bin/chromium");
        String driver = System.getProperty("it.chromedriver", "/usr/bin/chromedriver");
        assumeTrue(Files.isExecutable(Path.of(chromium)) && Files.isExecutable(Path.of(driver)),
                "SKIPPED: headless browser test needs " + chromium + " and " + driver
                        + " (apt-get install chromium chromium-driver; CI installs them)");
        demo = DemoProcess.start("browser", data);
    }

    @AfterAll
    static void stop() {
        if (demo != null) {
            demo.close();
        }
        DemoProcess.assertNoLeftovers();
    }

    static ChromeDriver chrome() {
        ChromeOptions options = new ChromeOptions();
        options.setBinary(System.getProperty("it.chromium", "/usr/bin/chromium"));
        options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", "--window-size=1280,900", "--user-data-dir=" + profile.toAbsolutePath());
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(System.getProperty("it.chromedriver", "/usr/bin/chromedriver")))
                .usingAnyFreePort()
                .build();
        return new ChromeDriver(service, options);
    }

    @Test
    void aNoteAddedInOneTabAppearsLiveInTheOther() throws IOException {
        Path artifacts = artifacts();
        ChromeDriver driver = chrome();
        try {
            WebDriverWait wait = new WebDriverWait(driver, Duration.ofSeconds(20));
            String boardName = "Browser board " + System.currentTimeMillis() % 100000;

            // Tab A: create the board through the page and open it.
            driver.get(demo.baseUrl() + "/");
            String tabA = driver.getWindowHandle();
            wait.until(d -> d.findElement(By.id("create-board")).isDisplayed());
            driver.findElement(By.id("board-name")).sendKeys(boardName);
            driver.findElement(By.id("create-board")).click();
            WebElement item = wait.until(d -> boardItem(d, boardName));
            String boardId = item.getAttribute("data-board-id");
            assertThat(boardId).matches("b\\d+");
            item.click();
            wait.until(d -> d.getCurrentUrl().endsWith("#" + boardId));
            wait.until(d -> d.findElement(By.id("status")).getText().trim().equalsIgnoreCase("live"));

            // Tab B: the same board, straight from its URL hash.
            driver.switchTo().newWindow(WindowType.TAB);
            String tabB = driver.getWindowHandle();
            driver.get(demo.baseUrl() + "/#" + boardId);
            wait.until(d -> d.findElement(By.id("status")).getText().trim().equalsIgnoreCase("live"));

            // Add a note in tab A.
            driver.switchTo().window(tabA);
            String text = "note from tab A " + System.nanoTime() % 100000;
            driver.findElement(By.id("note-text")).sendKeys(text);
            driver.findElement(By.id("add-note")).click();
            wait.until(d -> noteTexts(d).contains(text));

            // It appears in tab B without a reload.
            driver.switchTo().window(tabB);
            wait.until(d -> noteTexts(d).contains(text));
            WebElement note = driver.findElements(By.cssSelector("#notes [data-note-id]")).stream()
                    .filter(e -> e.findElement(By.cssSelector(".note-text")).getText().equals(text)).findFirst().orElseThrow();
            String noteId = note.getAttribute("data-note-id");

            // The metrics panel.
            wait.until(d -> !d.findElement(By.id("transport")).getText().isBlank());
            String transport = driver.findElement(By.id("transport")).getText();
            for (String id : List.of("metrics", "wakeups-per-dispatch", "fsyncs-per-change", "queue-depth")) {
                assertThat(driver.findElements(By.id(id))).as("#%s on the page", id).isNotEmpty();
            }
            shot(driver, artifacts.resolve("tab-b-live-note.png"));
            driver.switchTo().window(tabA);
            shot(driver, artifacts.resolve("tab-a-after-add.png"));
            System.out.printf("[browser] board %s, note %s appeared live in the second tab; transport shown: %s; screenshots in %s%n",
                    boardId, noteId, transport, artifacts.toAbsolutePath());

            // The server agrees.
            JsonNode snap = new Scenarios(demo.http()).board("/api", boardId);
            assertThat(snap.path("name").asText()).isEqualTo(boardName);
            assertThat(snap.path("notes").findValuesAsText("text")).contains(text);
        } catch (RuntimeException | AssertionError e) {
            shotOnFailure(driver, artifacts.resolve("failure.png"), e);
            throw e;
        } finally {
            driver.quit();
        }
        // No browser or driver process outlives the test.
        String marker = profile.toAbsolutePath().toString();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        List<ProcessHandle> left;
        do {
            left = ProcessHandle.allProcesses()
                    .filter(h -> h.info().commandLine().map(c -> c.contains(marker)).orElse(false)).toList();
        } while (!left.isEmpty() && System.nanoTime() < deadline && pause());
        left.forEach(ProcessHandle::destroyForcibly);
        assertThat(left).as("Chromium processes left running").isEmpty();
    }

    /**
     * The page's rough edges, each checked as a user sees it: the note count of a board that is not
     * open is a number; the list is pushed (a board created elsewhere appears without a reload: the
     * page holds a list stream besides its board stream); an error banner goes with Cancel and after
     * a reconnect; "Add note" is disabled while offline; "Journal changes" shows the journal's total,
     * which a restart does not reset.
     */
    @Test
    void countsErrorsAndTheOfflineStateAreRight() throws IOException {
        Path artifacts = artifacts();
        Scenarios api = new Scenarios(demo.http());
        String full = api.createBoard("/api", "Three notes").path("id").asText();
        for (int i = 0; i < 2; i++) {
            api.addNote("/api", full, "note " + i);
        }
        String open = api.createBoard("/api/kt", "Open here").path("id").asText();
        ChromeDriver driver = chrome();
        try {
            WebDriverWait wait = new WebDriverWait(driver, Duration.ofSeconds(30));
            driver.get(demo.baseUrl() + "/#" + open);
            wait.until(d -> statusIs(d, "live"));
            wait.until(d -> "2".equals(boardCount(d, full)));

            // Pushed: one stream for the open board, one for the list.
            wait.until(d -> demo.http().get("/api/live").expect(200).path("pump").path("subscribers").asInt() == 2);
            String later = api.createBoard("/api", "Made elsewhere").path("id").asText();
            wait.until(d -> "0".equals(boardCount(d, later)));
            api.addNote("/api/kt", full, "note 2");
            wait.until(d -> "3".equals(boardCount(d, full)));

            // A conflict shows an error; Cancel takes it away.
            driver.findElement(By.id("note-text")).sendKeys("draft");
            driver.findElement(By.id("add-note")).click();
            wait.until(d -> noteTexts(d).contains("draft"));
            String noteId = driver.findElement(By.cssSelector("#notes [data-note-id]")).getAttribute("data-note-id");
            conflict(driver, wait, demo.http(), open, noteId, 1);
            driver.findElement(By.cssSelector("#notes .note-cancel")).click();
            wait.until(d -> !d.findElement(By.id("error")).isDisplayed());
            conflict(driver, wait, demo.http(), open, noteId, 2);

            // Offline: the service stops; the page says so and takes no new note.
            long total = demo.http().get("/api/live").expect(200).path("journal").path("changes").asLong();
            int port = demo.port();
            demo.close();
            wait.until(d -> statusIs(d, "offline"));
            assertThat(driver.findElement(By.id("add-note")).isEnabled()).as("Add note while offline").isFalse();
            assertThat(driver.findElement(By.id("note-text")).isEnabled()).as("note text while offline").isFalse();
            shot(driver, artifacts.resolve("offline.png"));

            // Back: live again, the old error gone, the journal's total as before the restart.
            demo = DemoProcess.start("browser-restarted", data, port);
            wait.until(d -> statusIs(d, "live"));
            wait.until(d -> !d.findElement(By.id("error")).isDisplayed());
            assertThat(driver.findElement(By.id("add-note")).isEnabled()).isTrue();
            wait.until(d -> Long.toString(total).equals(d.findElement(By.id("journal-changes")).getText().trim()));
            shot(driver, artifacts.resolve("after-restart.png"));
            System.out.printf("[browser] counts pushed, errors cleared, offline shown; journal total %d after a restart%n", total);
        } catch (RuntimeException | AssertionError e) {
            shotOnFailure(driver, artifacts.resolve("failure-edges.png"), e);
            throw e;
        } finally {
            driver.quit();
        }
    }

    /**
     * The page against what users and other browsers do to it: a hash that is no board id (or no
     * valid escape) is shown as an error and the rest of the page works; a page left for another
     * one gives its event streams back (a browser keeps it in its back-forward cache, and with two
     * streams per page three such pages used all six connections a browser opens to one host); a
     * note's line breaks survive an edit; an edit whose note another browser deleted says so; a
     * delete that loses a version race explains it; Enter twice adds one note.
     */
    @Test
    void theHashEditsDeletesAndPagesLeftBehindAreHandled() throws IOException {
        Path artifacts = artifacts();
        Scenarios api = new Scenarios(demo.http());
        String board = api.createBoard("/api", "Edges").path("id").asText();
        ChromeDriver driver = chrome();
        try {
            WebDriverWait wait = new WebDriverWait(driver, Duration.ofSeconds(30));

            // A malformed escape: the board list still loads, the hash is reported.
            driver.get(demo.baseUrl() + "/#%E0%A4%A");
            wait.until(d -> boardCount(d, board) != null);
            wait.until(d -> d.findElement(By.id("error")).isDisplayed()
                    && d.findElement(By.id("error")).getText().contains("not a board id"));
            // No board id: the service's 400 is shown, and the page stops asking.
            driver.get(demo.baseUrl() + "/");
            driver.get(demo.baseUrl() + "/#foo");
            wait.until(d -> d.findElement(By.id("error")).isDisplayed()
                    && d.findElement(By.id("error")).getText().contains("'foo' is not a board id"));
            wait.until(d -> statusIs(d, "offline"));

            // A page left behind gives its two streams back (the board's and the list's).
            driver.get(demo.baseUrl() + "/api/ping");
            driver.get(demo.baseUrl() + "/#" + board);
            wait.until(d -> statusIs(d, "live"));
            wait.until(d -> subscribers() >= 2);
            int open = subscribers();
            driver.get(demo.baseUrl() + "/api/ping");
            wait.until(d -> subscribers() == open - 2);
            driver.navigate().back();
            wait.until(d -> statusIs(d, "live"));
            wait.until(d -> subscribers() == open);

            // Line breaks survive an edit.
            String multi = api.addNote("/api", board, "Shopping:\n- milk\n- eggs").path("id").asText();
            wait.until(d -> d.findElements(By.cssSelector("[data-note-id='" + multi + "'] .note-edit")).size() == 1);
            driver.findElement(By.cssSelector("[data-note-id='" + multi + "'] .note-edit")).click();
            WebElement editor = wait.until(d -> d.findElement(By.cssSelector("[data-note-id='" + multi + "'] .note-input")));
            assertThat(editor.getAttribute("value")).isEqualTo("Shopping:\n- milk\n- eggs");
            driver.findElement(By.cssSelector("[data-note-id='" + multi + "'] .note-save")).click();
            wait.until(d -> d.findElements(By.cssSelector("[data-note-id='" + multi + "'] .note-input")).isEmpty());
            assertThat(demo.http().get("/api/boards/" + board + "/notes/" + multi).expect(200).path("text").asText())
                    .isEqualTo("Shopping:\n- milk\n- eggs");

            // An open edit whose note another browser deletes says so.
            String gone = api.addNote("/api", board, "to be deleted elsewhere").path("id").asText();
            wait.until(d -> d.findElements(By.cssSelector("[data-note-id='" + gone + "'] .note-edit")).size() == 1);
            driver.findElement(By.cssSelector("[data-note-id='" + gone + "'] .note-edit")).click();
            wait.until(d -> d.findElement(By.cssSelector("[data-note-id='" + gone + "'] .note-input")));
            demo.http().delete("/api/boards/" + board + "/notes/" + gone).expect(204);
            wait.until(d -> d.findElement(By.id("error")).isDisplayed()
                    && d.findElement(By.id("error")).getText().contains("deleted by someone else"));

            // A delete that loses a version race: the conflict is explained, no script error.
            String raced = api.addNote("/api", board, "raced").path("id").asText();
            wait.until(d -> d.findElements(By.cssSelector("[data-note-id='" + raced + "'] .note-delete")).size() == 1);
            driver.executeScript("window.__errors = []; window.addEventListener('unhandledrejection', e => window.__errors.push(String(e.reason)));"
                    + "window.addEventListener('error', e => window.__errors.push(e.message));"
                    + "const f = window.fetch; window.__delays = {DELETE: 800, POST: 800}; window.__posts = 0;"
                    + "window.fetch = async (u, o) => { if (o && o.method === 'POST') window.__posts++;"
                    + " const d = o && window.__delays[o.method]; if (d) await new Promise(r => setTimeout(r, d)); return f(u, o); };");
            driver.findElement(By.cssSelector("[data-note-id='" + raced + "'] .note-delete")).click();
            demo.http().putJson("/api/boards/" + board + "/notes/" + raced, Http.obj("text", "changed meanwhile", "expectedVersion", 1)).expect(200);
            wait.until(d -> d.findElements(By.cssSelector("[data-note-id='" + raced + "'] .note-hint")).stream()
                    .anyMatch(h -> h.getText().contains("Conflict: the note was reloaded (v2)")));
            assertThat(String.valueOf(driver.executeScript("return window.__errors.join(' | ')"))).isEmpty();

            // Enter twice while the first add is on its way: one note.
            driver.findElement(By.id("note-text")).sendKeys("once\n");
            driver.findElement(By.id("note-text")).sendKeys("\n");
            wait.until(d -> noteTexts(d).contains("once"));
            // A submit calls fetch at once: by the time the first note shows, a second would have been sent.
            assertThat(((Number) driver.executeScript("return window.__posts")).intValue()).as("POSTs sent").isEqualTo(1);
            assertThat(demo.http().get("/api/boards/" + board).expect(200).path("notes").findValuesAsText("text"))
                    .filteredOn("once"::equals).hasSize(1);
            shot(driver, artifacts.resolve("edges.png"));
        } catch (RuntimeException | AssertionError e) {
            shotOnFailure(driver, artifacts.resolve("failure-hash-edits.png"), e);
            throw e;
        } finally {
            driver.quit();
        }
    }

    private static int subscribers() {
        return demo.http().get("/api/live").expect(200).path("pump").path("subscribers").asInt();
    }

    /** Edits the note in the page after someone else changed it: 409, shown as an error. */
    private static void conflict(WebDriver driver, WebDriverWait wait, Http http, String board, String noteId,
                                 long version) {
        driver.findElement(By.cssSelector("[data-note-id='" + noteId + "'] .note-edit")).click();
        WebElement input = wait.until(d -> d.findElement(By.cssSelector("[data-note-id='" + noteId + "'] .note-input")));
        http.putJson("/api/boards/" + board + "/notes/" + noteId,
                Http.obj("text", "changed elsewhere " + version, "expectedVersion", version)).expect(200);
        input.sendKeys(" mine");
        driver.findElement(By.cssSelector("[data-note-id='" + noteId + "'] .note-save")).click();
        wait.until(d -> d.findElement(By.id("error")).isDisplayed()
                && d.findElement(By.id("error")).getText().contains("Conflict"));
    }

    private static boolean statusIs(WebDriver d, String status) {
        return d.findElement(By.id("status")).getText().trim().equalsIgnoreCase(status);
    }

    private static String boardCount(WebDriver d, String boardId) {
        try {
            List<WebElement> counts = d.findElements(By.cssSelector("#boards [data-board-id='" + boardId + "'] .board-count"));
            return counts.isEmpty() ? null : counts.get(0).getText().trim();
        } catch (StaleElementReferenceException rerendered) {
            return null;
        }
    }

    private static boolean pause() {
        try {
            Thread.sleep(200);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return true;
    }

    // The page re-renders its lists when they change: an element found a moment ago may be gone, and
    // the wait then simply asks again (null / an empty list means "not yet").

    private static WebElement boardItem(WebDriver d, String name) {
        try {
            return d.findElements(By.cssSelector("#boards [data-board-id]")).stream()
                    .filter(e -> e.getText().contains(name)).findFirst().orElse(null);
        } catch (StaleElementReferenceException rerendered) {
            return null;
        }
    }

    private static List<String> noteTexts(WebDriver d) {
        try {
            return d.findElements(By.cssSelector("#notes [data-note-id] .note-text")).stream().map(WebElement::getText).toList();
        } catch (StaleElementReferenceException rerendered) {
            return List.of();
        }
    }

    /** Where screenshots go ({@code target/browser/}), made if need be. */
    private static Path artifacts() throws IOException {
        return Files.createDirectories(Path.of(System.getProperty("it.artifacts", "target/browser")));
    }

    /** A failed check leaves a screenshot of where the page was; the failure is what matters. */
    private static void shotOnFailure(WebDriver driver, Path to, Throwable failure) {
        try {
            shot(driver, to);
        } catch (IOException | RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    private static void shot(WebDriver driver, Path to) throws IOException {
        File f = ((TakesScreenshot) driver).getScreenshotAs(OutputType.FILE);
        Files.copy(f.toPath(), to, StandardCopyOption.REPLACE_EXISTING);
    }
}
