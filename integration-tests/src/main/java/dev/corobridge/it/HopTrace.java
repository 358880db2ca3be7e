package dev.corobridge.it;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code Hop-Trace} response header: steps {@code context@thread[:note]} separated by
 * {@code " > "}, in the order they ran.
 */
public record HopTrace(String raw, List<Step> steps) {

    /** The pump's thread (and context) name prefix. */
    public static final Pattern PUMP = Pattern.compile("corobridge-pump.*");
    /** A ring thread: corobridge-ring-N. */
    public static final Pattern RING = Pattern.compile("corobridge-ring-\\d+.*");

    private static final Pattern STEP = Pattern.compile("([^@]+)@([^:]+)(?::(.*))?");

    public record Step(String context, String thread, String note) {
        public boolean onPump() {
            return PUMP.matcher(thread).matches();
        }

        public boolean onRing() {
            return RING.matcher(thread).matches();
        }

        @Override
        public String toString() {
            return context + "@" + thread + (note == null ? "" : ":" + note);
        }
    }

    public static HopTrace parse(String request, String header) {
        if (header == null) {
            return new HopTrace(null, List.of());
        }
        List<Step> steps = new ArrayList<>();
        for (String part : header.split(" > ")) {
            Matcher m = STEP.matcher(part.trim());
            if (!m.matches()) {
                throw new AssertionError(request + ": malformed Hop-Trace step '" + part + "' in: " + header);
            }
            steps.add(new Step(m.group(1), m.group(2), m.group(3)));
        }
        return new HopTrace(header, List.copyOf(steps));
    }

    public boolean present() {
        return raw != null;
    }

    public boolean anyOnPump() {
        return steps.stream().anyMatch(Step::onPump);
    }

    public boolean anyOnRing() {
        return steps.stream().anyMatch(Step::onRing);
    }

    @Override
    public String toString() {
        return raw == null ? "(no Hop-Trace header)" : raw;
    }
}
