package io.resumekit.conformance;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Paimon reader scenarios (P1–P3): a table written in batches (one snapshot each), a streaming reader
 * with a consumer id, killed; resumekit resolves from the consumer, and the new reader is started
 * with the decision's options ({@link PaimonStream}, {@link PaimonDamage}).
 */
final class PaimonKind extends ScenarioKind {
    static final String NAME = "paimon";

    @Override
    String name() {
        return NAME;
    }

    @Override
    void vars(Scenarios s, Path w, String scenario, Map<String, String> vars) {
        vars.put("${table}", w.resolve("wh").resolve("db.db").resolve("orders").toString());
    }

    @Override
    void prepare(Path w, String scenario, ObjectNode sc) throws Exception {
        ObjectNode job = (ObjectNode) sc.get("job");
        int per = job.path("perBatch").asInt(100);
        int before = job.path("batches").asInt(20);
        int after = job.path("batchesAfter").asInt(0);
        job.put("source", "paimon");
        job.put("warehouse", w.resolve("wh").toString());
        job.put("records", (long) (before + after) * per);
        PaimonStream.write(w.resolve("wh"), 0, before, per);
    }

    @Override
    void afterRuns(Path w, JsonNode sc, ObjectNode flink) throws Exception {
        JsonNode job = sc.get("job");
        int per = job.path("perBatch").asInt(100);
        int before = job.path("batches").asInt(20);
        PaimonStream.write(w.resolve("wh"), before, before + job.path("batchesAfter").asInt(0), per);
        PaimonDamage.record(w, sc, flink); // the table and the killed reader's consumer, before any damage
    }

    @Override
    boolean inventories(JsonNode sc) {
        return sc.path("trials").asBoolean(false);
    }

    @Override
    boolean judge(Scenarios s, Stage st) throws Exception {
        if (st.chosen.isMissingNode() || st.chosen.isNull()) {
            throw new Scenarios.Mismatch("resumekit chose nothing from the consumer (exit " + st.rc + "): " + st.stderr);
        }
        st.rk.set("position", st.chosen.path("position"));
        st.rk.set("options", st.chosen.path("launch").path("options"));
        if (PaimonDamage.applies(st.stage)) {
            PaimonDamage.launch(st.w, st.sc, (ObjectNode) st.sc.get("job"), st.chosen, st.tconf, st.mc, st.fl, st.cmd);
        } else {
            PaimonStream.launch(st.w, st.sc, (ObjectNode) st.sc.get("job"), st.chosen, st.tconf, st.mc, st.fl);
        }
        return true;
    }
}
