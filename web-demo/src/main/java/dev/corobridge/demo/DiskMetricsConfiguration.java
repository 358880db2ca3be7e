package dev.corobridge.demo;

import java.util.ArrayList;
import java.util.List;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.config.MeterFilter;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The disk metrics ({@code disk.free}, {@code disk.total}) under the tag {@code path="data-dir"}:
 * they watch the data directory's disk ({@code management.metrics.system.diskspace.paths}, set to
 * {@code demo.data-dir} in {@code application.properties}), and the metrics endpoints are as open as
 * the health's status, while the directory's path is the operator's business (see API.md, Running).
 */
@Configuration(proxyBeanMethods = false)
public class DiskMetricsConfiguration {

    /** The tag value that stands for the data directory. */
    static final String DATA_DIR = "data-dir";

    @Bean
    MeterFilter dataDirectoryPathTag() {
        return new MeterFilter() {
            @Override
            public Meter.Id map(Meter.Id id) {
                if (!id.getName().startsWith("disk.") || id.getTag("path") == null) {
                    return id;
                }
                List<Tag> tags = new ArrayList<>();
                for (Tag t : id.getTagsAsIterable()) {
                    tags.add(t.getKey().equals("path") ? Tag.of("path", DATA_DIR) : t);
                }
                return id.replaceTags(tags);
            }
        };
    }
}
