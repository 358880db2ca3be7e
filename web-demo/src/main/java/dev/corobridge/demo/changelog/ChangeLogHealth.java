package dev.corobridge.demo.changelog;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the service's health shows of a {@link ChangeLog}: whether it takes changes, and details for
 * operators (counters, what start-up repaired, why it went down), in the order given. Immutable.
 *
 * @param up      {@code false} once the log failed and refuses changes
 * @param details named values, shown in this order
 */
public record ChangeLogHealth(boolean up, Map<String, Object> details) {

    public ChangeLogHealth {
        details = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(details));
    }
}
