package io.resumekit.conformance;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

import java.nio.file.Path;

/** P4: Paimon consumer files across Go and Java, judged by Paimon's own code ({@link PaimonInterop}). */
final class PaimonInteropKind extends ScenarioKind {
    static final String NAME = "paimon-interop";

    @Override
    String name() {
        return NAME;
    }

    @Override
    boolean alone() {
        return true;
    }

    @Override
    void runAlone(Scenarios s, Path w, JsonNode sc, ObjectNode result) throws Exception {
        PaimonInterop.run(w, sc, s.resumectl, result);
    }
}
