package io.resumekit.conformance;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

import java.nio.file.Path;

/** C2: operator ids of generated topologies against Flink's JobGraph, no cluster ({@link GeneratedIds}). */
final class GeneratedIdsKind extends ScenarioKind {
    static final String NAME = "generated-ids";

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
        GeneratedIds.run(w, sc, s.exportDir, result);
    }
}
