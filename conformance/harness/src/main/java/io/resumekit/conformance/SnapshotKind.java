package io.resumekit.conformance;

/**
 * The default kind (no {@code "kind"} in the file): the count job's checkpoints and savepoints,
 * every one tried in Flink, the new job launched from resumekit's launch and its output judged.
 */
final class SnapshotKind extends ScenarioKind {
    static final String NAME = "flink";

    @Override
    String name() {
        return NAME;
    }
}
