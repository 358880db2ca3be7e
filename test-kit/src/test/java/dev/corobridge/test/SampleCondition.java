package dev.corobridge.test;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/** Enables {@link Sample} classes only in runs that {@link Samples} starts (a configuration parameter says so). */
public final class SampleCondition implements ExecutionCondition {

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        return context.getConfigurationParameter(Samples.RUN_SAMPLES).map(Boolean::parseBoolean).orElse(false)
                ? ConditionEvaluationResult.enabled("run by Samples")
                : ConditionEvaluationResult.disabled("a sample for the test kit's own tests; Samples runs it");
    }
}
