package io.resumekit.conformance;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * Kafka scenarios (K1, K2, K4, F13): input produced to the shared real broker, a KafkaSource job;
 * a decision without a snapshot launch (committed offsets, a salvage start) is launched as a Flink
 * SQL job over the topic ({@link KafkaScenario#launch}); one with a snapshot launch goes to the
 * snapshot judge.
 */
final class KafkaKind extends ScenarioKind {
    static final String NAME = "kafka";

    KafkaBroker broker;

    @Override
    String name() {
        return NAME;
    }

    @Override
    void vars(Scenarios s, Path w, String scenario, Map<String, String> vars) throws Exception {
        broker = KafkaBroker.shared(s.target);
        vars.put("${kafka}", broker.bootstrap());
        vars.put("${topic}", "in-" + scenario);
        vars.put("${group}", "g-" + scenario);
    }

    @Override
    void prepare(Path w, String scenario, ObjectNode sc) throws Exception {
        ObjectNode job = (ObjectNode) sc.get("job");
        job.put("source", "kafka");
        job.put("bootstrap", broker.bootstrap());
        job.put("topic", "in-" + scenario);
        job.put("group", "g-" + scenario);
        KafkaScenario.createAndFill(broker.bootstrap(), "in-" + scenario, job.path("keys").asInt(3), job.path("records").asLong());
    }

    @Override
    void afterRuns(Path w, JsonNode sc, ObjectNode flink) throws Exception {
        flink.set("committed_offsets", KafkaScenario.committed(sc.get("job").get("bootstrap").asText(),
                sc.get("job").get("group").asText()));
        ObjectNode fromOutput = Scenarios.sourceOffsetsFromOutput(w, sc);
        if (fromOutput != null) {
            flink.set("source_offsets_from_output", fromOutput);
        }
    }

    @Override
    boolean inventories(JsonNode sc) {
        return sc.path("trials").asBoolean(false);
    }

    @Override
    boolean judge(Scenarios s, Stage st) throws Exception {
        JsonNode chosen = st.chosen;
        if (!chosen.path("launch").path("args").isEmpty()) {
            return false; // a snapshot launch: the snapshot judge's
        }
        if (chosen.isMissingNode() || chosen.isNull()) {
            throw new Scenarios.Mismatch("resumekit chose nothing from the committed offsets (exit " + st.rc + "): " + st.stderr);
        }
        st.rk.set("position", chosen.path("position"));
        if (st.stage.has("sourcesOf")) {
            // the salvage start must begin where the snapshot's source state says (flink sources)
            Scenarios.Snap src = null;
            for (Scenarios.Snap sn : st.snaps) {
                if (sn.hasMetadata && (src == null || Scenarios.newer(sn, src))) {
                    src = sn;
                }
            }
            if (src != null) {
                Process p2 = new ProcessBuilder(s.resumectl.toString(), "flink", "sources", src.dir.toString(), "--json")
                        .redirectError(st.w.resolve("sources.err").toFile()).start();
                String js = new String(p2.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                p2.waitFor(60, TimeUnit.SECONDS);
                TreeMap<Integer, Long> fromSources = new TreeMap<>();
                Scenarios.collectOffsets(Flink.JSON.readTree(js), fromSources);
                st.fl.set("flink_sources_offsets", Flink.JSON.valueToTree(fromSources));
                String spec = chosen.path("launch").path("options").path("scan.startup.specific-offsets").asText("");
                TreeMap<Integer, Long> fromLaunch = new TreeMap<>();
                for (String part : spec.split(";")) {
                    if (part.isBlank()) {
                        continue;
                    }
                    String[] kv = part.split(",");
                    fromLaunch.put(Integer.parseInt(kv[0].split(":")[1]), Long.parseLong(kv[1].split(":")[1]));
                }
                st.fl.set("launch_offsets", Flink.JSON.valueToTree(fromLaunch));
                if (!fromLaunch.equals(fromSources)) {
                    throw new Scenarios.Mismatch("the salvage launch starts at " + fromLaunch + ", flink sources of " + src.uri() + " says " + fromSources);
                }
            }
        }
        KafkaScenario.launch(st.w, st.sc, st.si, (ObjectNode) st.sc.get("job"), chosen, st.tconf, st.mc, st.fl);
        return true;
    }
}
