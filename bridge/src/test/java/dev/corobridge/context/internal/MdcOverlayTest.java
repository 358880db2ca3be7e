package dev.corobridge.context.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The copy-on-first-write map: reads see the base, every kind of write goes to an own copy. */
class MdcOverlayTest {

    private final Map<String, String> base = Map.of("a", "1", "b", "2");

    @Test
    void readsSeeTheBase() {
        MdcOverlay m = new MdcOverlay(base);
        assertThat(m.get("a")).isEqualTo("1");
        assertThat(m.containsKey("b")).isTrue();
        assertThat(m).hasSize(2).isEqualTo(base).hasSameHashCodeAs(base);
        assertThat(m.isEmpty()).isFalse();
        assertThat(m.toString()).isEqualTo(base.toString());
        assertThat(new HashMap<>(m)).isEqualTo(base);
    }

    @Test
    void everyWriteGoesToACopy() {
        MdcOverlay m = new MdcOverlay(base);
        assertThat(m.put("c", "3")).isNull();
        assertThat(m.remove("a")).isEqualTo("1");
        assertThat(m).isEqualTo(Map.of("b", "2", "c", "3"));
        m.putAll(Map.of("d", "4"));
        assertThat(m).containsEntry("d", "4");
        m.clear();
        assertThat(m).isEmpty();
        assertThat(base).isEqualTo(Map.of("a", "1", "b", "2"));
    }

    @Test
    void removingThroughTheEntrySetLeavesTheBaseAlone() {
        MdcOverlay m = new MdcOverlay(base);
        m.entrySet().removeIf(e -> e.getKey().equals("a"));
        m.keySet().remove("b");
        assertThat(m).isEmpty();
        assertThat(base).hasSize(2);
    }
}
