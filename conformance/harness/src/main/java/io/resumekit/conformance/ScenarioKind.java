package io.resumekit.conformance;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.minicluster.MiniCluster;

import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * What a scenario's {@code "kind"} changes in a run, one subclass per kind, registered by name in
 * {@link #KINDS}: the variables its file may use, the input it prepares before the runs, what it
 * records after them, whether Flink's snapshots are inventoried and tried, and how the chosen
 * decision is launched and judged. {@link Scenarios} asks the scenario's kind at each of those points
 * and never compares the kind string itself, so a new kind is one new class and one line here.
 *
 * <p>A fresh instance serves one scenario run (a kind may keep what it started, e.g. the broker).
 */
abstract class ScenarioKind {
    /** Every kind by its name in a scenario file; a file without {@code "kind"} is {@link SnapshotKind}. */
    static final Map<String, Supplier<ScenarioKind>> KINDS;

    static {
        Map<String, Supplier<ScenarioKind>> m = new LinkedHashMap<>();
        m.put(SnapshotKind.NAME, SnapshotKind::new);
        m.put(KafkaKind.NAME, KafkaKind::new);
        m.put(KafkaSinkKind.NAME, KafkaSinkKind::new);
        m.put(PaimonKind.NAME, PaimonKind::new);
        m.put(PaimonInteropKind.NAME, PaimonInteropKind::new);
        m.put(GeneratedIdsKind.NAME, GeneratedIdsKind::new);
        m.put(KafkaPaimonKind.NAME, KafkaPaimonKind::new);
        m.put(RecordKind.NAME, RecordKind::new);
        KINDS = Collections.unmodifiableMap(m);
    }

    /** The kind of a scenario file (its {@code "kind"}, {@link SnapshotKind} when absent). */
    static ScenarioKind of(JsonNode scenario) {
        String name = scenario.path("kind").asText(SnapshotKind.NAME);
        Supplier<ScenarioKind> k = KINDS.get(name);
        if (k == null) {
            throw new IllegalArgumentException("scenario " + scenario.path("name").asText("?") + ": unknown kind \""
                    + name + "\" (known: " + String.join(", ", KINDS.keySet()) + ")");
        }
        return k.get();
    }

    /** The kind's name in a scenario file. */
    abstract String name();

    /**
     * Adds the kind's own variables (e.g. {@code ${kafka}}) before the file is substituted; may start
     * what they name.
     */
    void vars(Scenarios s, Path w, String scenario, Map<String, String> vars) throws Exception {}

    /** Prepares the input and completes the job spec before the runs (sc is the substituted file). */
    void prepare(Path w, String scenario, ObjectNode sc) throws Exception {}

    /**
     * True when the kind needs no runs, trials or launches of the count job: {@link #runAlone} does
     * the whole scenario.
     */
    boolean alone() {
        return false;
    }

    /** The whole scenario of a kind that runs {@link #alone()}; a {@link Scenarios.Mismatch} fails it. */
    void runAlone(Scenarios s, Path w, JsonNode sc, ObjectNode result) throws Exception {
        throw new UnsupportedOperationException(name() + " does not run alone");
    }

    /** Records what the kind knows after the runs (and writes what comes after them), before any damage. */
    void afterRuns(Path w, JsonNode sc, ObjectNode flink) throws Exception {}

    /** Whether Flink's snapshots on disk are inventoried and each tried in a fresh job. */
    boolean inventories(JsonNode sc) {
        return true;
    }

    /**
     * Launches and judges the decision when the kind starts the new job itself (not from a snapshot
     * of the count job); false leaves it to {@link Scenarios}' snapshot judge.
     */
    boolean judge(Scenarios s, Stage st) throws Exception {
        return false;
    }

    /** One stage's decision as a kind's judge sees it. */
    static final class Stage {
        Path w;
        JsonNode sc;
        JsonNode stage;
        int si;
        Configuration tconf;
        MiniCluster mc;
        List<Scenarios.Snap> snaps;
        JsonNode chosen;
        ObjectNode rk;
        ObjectNode fl;
        List<String> cmd;
        int rc;
        String stderr;
    }
}
