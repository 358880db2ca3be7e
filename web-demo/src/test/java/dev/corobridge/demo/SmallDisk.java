package dev.corobridge.demo;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A small tmpfs mounted for a test that needs a disk that fills up (or nearly), under
 * {@link TestData#ROOT}. Where mounting is not allowed (no root, a restricted container) nothing is
 * mounted and {@link #mounted()} says so: the test then skips what needs it.
 *
 * @param path    the directory (the mount point, or a plain directory if mounting failed)
 * @param mounted whether the tmpfs is mounted there
 */
public record SmallDisk(Path path, boolean mounted) implements AutoCloseable {

    /** Why a test that needs the disk skips where there is none. */
    public static final String NEEDS = "a tmpfs can be mounted here (needs root and a mount-capable sandbox)";

    /** Mounts a tmpfs of {@code size} (as mount takes it: {@code 256k}, {@code 2m}) on a new directory named after {@code prefix}. */
    public static SmallDisk mount(String prefix, String size) {
        Path dir = TestData.directory(prefix);
        return new SmallDisk(dir, run("mount", "-t", "tmpfs", "-o", "size=" + size, "tmpfs", dir.toString()));
    }

    /** Unmounts the tmpfs (lazily: a service that still holds a file there lets go when it closes). */
    @Override
    public void close() {
        if (mounted) {
            run("umount", "-l", path.toString());
        }
    }

    private static boolean run(String... command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (java.io.IOException e) {
            return false; // no mount command: as if not allowed
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
