package dev.corobridge.test;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A sample test class for the test kit's own tests: it runs only when {@link Samples} runs it
 * through the Jupiter engine (which then checks its outcome), never on its own (e.g. when an IDE
 * runs every class of the package; surefire skips nested classes anyway).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(SampleCondition.class)
public @interface Sample {
}
