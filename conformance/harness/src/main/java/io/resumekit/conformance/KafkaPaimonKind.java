package io.resumekit.conformance;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.commons.cli.CommandLine;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.client.cli.CliFrontendParser;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.checkpoint.RestoredCheckpointStats;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.SavepointRestoreSettings;
import org.apache.flink.runtime.jobmaster.JobResult;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * Kafka→Paimon SQL scenarios (KP1, KP2; PS1 reads a Paimon table instead of the topic:
 * {@link KafkaPaimonJob#paimonSource}): the {@link KafkaPaimonJob} compiled to a plan and run from
 * it, reading topic {@code in-NAME} (its ids produced round-robin, id = offset × partitions +
 * partition) with group {@code g-NAME} into a Paimon table ({@code ${table}}), crashed. The
 * snapshots are tried in Flink with each stage's new job; the decision is launched (a restore:
 * Launch.Args / Launch.Config; a stateless start: the decision's Launch.Options as the Kafka table's
 * options) into a copy of the table as the runs left it, run to the end of the input, and the
 * table's rows are judged against the grade: exactly-once and exact-input every id once, replay
 * every id, data-loss some id missing (never an empty loss), each below the start.
 */
final class KafkaPaimonKind extends ScenarioKind {
    static final String NAME = "kafkaPaimon";

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
        vars.put("${table}", w.resolve("wh").resolve("sink").toString());
    }

    @Override
    void prepare(Path w, String scenario, ObjectNode sc) throws Exception {
        ObjectNode job = (ObjectNode) sc.get("job");
        job.put("tables", KafkaPaimonJob.TABLES);
        job.put("bootstrap", broker.bootstrap());
        job.put("topic", "in-" + scenario);
        job.put("group", "g-" + scenario);
        job.put("sinkPath", w.resolve("wh").resolve("sink").toString());
        ObjectNode halt = Flink.JSON.createObjectNode().put("bootstrap", broker.bootstrap()).put("group", "g-" + scenario);
        Flink.writeJson(w.resolve("kafka-paimon-halt.json"), halt);
        if (KafkaPaimonJob.paimonSource(job)) {
            KafkaPaimonJob.fillSource(job); // the job reads a Paimon table, not the topic
        } else {
            KafkaScenario.createAndFill(broker.bootstrap(), "in-" + scenario, job.path("keys").asInt(2), job.path("records").asLong());
        }
    }

    @Override
    void afterRuns(Path w, JsonNode sc, ObjectNode flink) throws Exception {
        JsonNode job = sc.get("job");
        if (!KafkaPaimonJob.paimonSource(job)) {
            flink.set("committed_offsets", KafkaScenario.committed(job.get("bootstrap").asText(), job.get("group").asText()));
        }
        Path table = KafkaPaimonJob.sinkPath(job);
        flink.set("table_latest_snapshot", KafkaPaimonJob.latest(table));
        TreeMap<Long, Integer> rows = KafkaPaimonJob.rows(table);
        flink.put("table_rows", rows.values().stream().mapToLong(Integer::longValue).sum());
        flink.put("records", job.get("records").asLong());
        Scenarios.copyTree(table, KafkaPaimonJob.pristine(job));
        for (int i = 0; i < sc.get("runs").size(); i++) {
            Path halted = w.resolve("run-" + i).resolve("commit-halted");
            if (Files.exists(halted)) {
                JsonNode h = Flink.JSON.readTree(halted.toFile());
                flink.set("paimon_commit_halted", h);
                if (!h.path("sourceCommitted").asBoolean()) {
                    throw new Scenarios.Mismatch("the crash point in Paimon's committer missed: the group's offsets (sum "
                            + h.path("groupOffsetsSum") + ") never covered the commit's " + h.path("totalRecordCount") + " rows");
                }
            }
        }
        if (sc.path("midStream").asBoolean(true) && KafkaPaimonJob.paimonSource(job) && rows.isEmpty()) {
            throw new Scenarios.Mismatch("the runs committed nothing to the table before the crash: the source's state holds no progress");
        }
        if (sc.path("midStream").asBoolean(true) && rows.size() >= job.get("records").asLong()) {
            throw new Scenarios.Mismatch("the runs committed every input to the table before the crash: nothing is judged mid-stream");
        }
    }

    @Override
    boolean judge(Scenarios s, Stage st) throws Exception {
        JsonNode chosen = st.chosen;
        boolean none = chosen.isMissingNode() || chosen.isNull();
        Scenarios.Snap best = null;
        for (Scenarios.Snap sn : st.snaps) {
            if (sn.trial != null && sn.trial.path("restorable").asBoolean() && (best == null || Scenarios.newer(sn, best))) {
                best = sn;
            }
        }
        st.fl.put("newest_restorable", best == null ? null : best.uri());
        String chosenPath = none ? null : chosen.path("position").path("path").asText(null);
        Scenarios.Snap chosenSnap = Scenarios.find(st.snaps, chosenPath);
        if (none) {
            if (best != null && !st.stage.path("allowConservative").asBoolean(false)) {
                throw new Scenarios.Mismatch("resumekit chose nothing (exit " + st.rc + "), but Flink restores " + best.uri()
                        + " with the new job: " + st.stderr);
            }
            st.fl.put("verdict", "nothing chosen; Flink restores " + (best == null ? "nothing" : best.uri()));
            return true;
        }
        if (chosenPath != null && chosenSnap == null) {
            throw new Scenarios.Mismatch("resumekit chose " + chosenPath + ", which is not a snapshot Flink wrote here");
        }
        if (chosenSnap != null && chosenSnap != best) {
            throw new Scenarios.Mismatch("resumekit chose " + chosenSnap.uri() + ", but the newest snapshot Flink restores with the new job is "
                    + (best == null ? "none: " + chosenSnap.trial.path("error").asText() : best.uri()));
        }
        if (chosenSnap == null && best != null && !st.stage.path("allowConservative").asBoolean(false)) {
            throw new Scenarios.Mismatch("resumekit chose a stateless start (" + chosen.path("kind").asText() + "), but Flink restores " + best.uri());
        }
        launch(st, chosen, chosenSnap);
        return true;
    }

    /** Launches the decision into a copy of the table, to the end of the input, and judges the rows. */
    static void launch(Stage st, JsonNode chosen, Scenarios.Snap chosenSnap) throws Exception {
        JsonNode launch = chosen.path("launch");
        SavepointRestoreSettings settings = SavepointRestoreSettings.none();
        Configuration jobConf = new Configuration(st.tconf);
        List<String> args = new ArrayList<>();
        launch.path("args").forEach(a -> args.add(a.asText()));
        if (!args.isEmpty()) {
            CommandLine cl = CliFrontendParser.parse(CliFrontendParser.getRunCommandOptions(), args.toArray(new String[0]), true);
            settings = CliFrontendParser.createSavepointRestoreSettings(cl);
            Properties dyn = cl.getOptionProperties("D");
            for (String k : dyn.stringPropertyNames()) {
                jobConf.setString(k, dyn.getProperty(k));
            }
        }
        Map<String, String> cfg = new HashMap<>();
        Iterator<Map.Entry<String, JsonNode>> it = launch.path("config").fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            cfg.put(e.getKey(), e.getValue().asText());
        }
        if (!settings.restoreSavepoint()) {
            settings = SavepointRestoreSettings.fromConfiguration(Configuration.fromMap(cfg));
        }
        if (chosenSnap != null && !settings.restoreSavepoint()) {
            throw new Scenarios.Mismatch("resumekit chose " + chosenSnap.uri() + " but its launch restores nothing in Flink");
        }
        if (chosenSnap == null && settings.restoreSavepoint()) {
            throw new Scenarios.Mismatch("a stateless start's launch restores " + settings);
        }
        ObjectNode v = st.stage.path("newJob").path("variant").isObject()
                ? ((ObjectNode) st.stage.path("newJob").path("variant")).deepCopy() : Flink.JSON.createObjectNode();
        v.put("rate", st.sc.get("job").path("finalRate").asDouble(0));
        ObjectNode job = ((ObjectNode) st.sc.get("job")).deepCopy();
        Map<String, String> sourceOptions = new TreeMap<>();
        if (chosenSnap != null) {
            job.put("group", job.get("group").asText() + "-final" + st.si); // the restore must not move the group
        } else {
            launch.path("options").fields().forEachRemaining(e -> sourceOptions.put(e.getKey(), e.getValue().asText()));
            v.set("sourceOptions", Flink.JSON.valueToTree(sourceOptions));
        }
        st.fl.set("launch_options", Flink.JSON.valueToTree(sourceOptions));
        Path journal = st.w.resolve("stage-" + st.si).resolve("journal");
        JobGraph jg = CountJob.build(jobConf, job, v, journal.toString(), "final" + st.si);
        JobID id = new JobID();
        jg.setJobID(id);
        jg.setSavepointRestoreSettings(settings);
        st.mc.submitJob(jg).get(60, TimeUnit.SECONDS);
        Path table = KafkaPaimonJob.copyOf(job, journal.toString(), "final" + st.si);
        long records = job.get("records").asLong();
        Long restored = null;
        long end = System.nanoTime() + Duration.ofSeconds(150).toNanos();
        long nextLook = 0;
        int checkpointsWhenFull = -1;
        boolean cancelled = false;
        while (!Flink.status(st.mc, id).isGloballyTerminalState()) {
            RestoredCheckpointStats r = Flink.restored(st.mc, id);
            if (r != null) {
                restored = r.getCheckpointId();
            }
            // A restored bounded KafkaSource never finishes (FLINK-31006: the restored enumerator
            // never signals no more splits): once the table holds every input, two more
            // checkpoints (copies read twice would be committed by then), then cancel.
            int done = Flink.completed(st.mc, id).size();
            if (checkpointsWhenFull < 0 && System.nanoTime() > nextLook) {
                nextLook = System.nanoTime() + Duration.ofSeconds(1).toNanos();
                try {
                    if (Files.isDirectory(table.resolve("snapshot")) && KafkaPaimonJob.rows(table).size() >= records) {
                        checkpointsWhenFull = done;
                    }
                } catch (Exception e) {
                    // a snapshot being written or expired under the read: look again
                }
            }
            if (checkpointsWhenFull >= 0 && done >= checkpointsWhenFull + 2) {
                st.mc.cancelJob(id).get(30, TimeUnit.SECONDS);
                st.mc.requestJobResult(id).get(30, TimeUnit.SECONDS);
                cancelled = true;
                st.fl.put("ended", "cancelled two checkpoints after the table held every input (" + (KafkaPaimonJob.paimonSource(job)
                        ? "a streaming Paimon source never finishes)" : "FLINK-31006: a restored bounded KafkaSource never finishes)"));
                break;
            }
            if (System.nanoTime() > end) {
                st.mc.cancelJob(id).get(30, TimeUnit.SECONDS);
                throw new Scenarios.Mismatch("the new job did not read to the end of the input within 150 s");
            }
            Thread.sleep(50);
        }
        JobResult jr = st.mc.requestJobResult(id).get(30, TimeUnit.SECONDS);
        if (!cancelled && Flink.status(st.mc, id) != JobStatus.FINISHED) {
            throw new Scenarios.Mismatch("the new job launched from resumekit's launch failed: "
                    + jr.getSerializedThrowable().map(x -> Flink.causes(x.deserializeError(KafkaPaimonKind.class.getClassLoader()))).orElse(""));
        }
        st.fl.put("restored", restored);
        if (chosenSnap != null && (restored == null || restored != chosenSnap.id)) {
            throw new Scenarios.Mismatch("the new job restored " + restored + ", not resumekit's chosen checkpoint " + chosenSnap.id);
        }
        judgeRows(st, chosen, table, sourceOptions);
    }

    /** The table's rows against the chosen grade. */
    static void judgeRows(Stage st, JsonNode chosen, Path table, Map<String, String> sourceOptions) throws Exception {
        JsonNode job = st.sc.get("job");
        long records = job.get("records").asLong();
        int parts = job.path("keys").asInt(2);
        TreeMap<Long, Integer> rows = KafkaPaimonJob.rows(table);
        TreeSet<Long> missing = new TreeSet<>();
        long twice = 0;
        for (long i = 0; i < records; i++) {
            int n = rows.getOrDefault(i, 0);
            if (n == 0) {
                missing.add(i);
            } else if (n > 1) {
                twice++;
            }
        }
        String grade = chosen.path("guarantee").asText();
        st.fl.put("grade", grade);
        st.fl.put("table", table.toString());
        st.fl.put("table_latest_snapshot", KafkaPaimonJob.latest(table));
        st.fl.put("lost", missing.size());
        st.fl.put("duplicated", twice);
        if (!missing.isEmpty()) {
            st.fl.put("first_lost", missing.first());
            st.fl.put("last_lost", missing.last());
        }
        switch (grade) {
            case "exactly-once":
            case "exact-input":
                if (!missing.isEmpty() || twice > 0) {
                    throw new Scenarios.Mismatch(grade + ": " + missing.size() + " inputs missing from the table (first id "
                            + (missing.isEmpty() ? "-" : missing.first()) + "), " + twice + " in it twice");
                }
                break;
            case "replay":
                if (!missing.isEmpty()) {
                    throw new Scenarios.Mismatch("replay: " + missing.size() + " inputs missing from the table, first id " + missing.first());
                }
                break;
            case "data-loss":
                if (missing.isEmpty()) {
                    throw new Scenarios.Mismatch("graded data-loss, but every input is in the table (" + twice + " twice)");
                }
                // the loss lies below the start: records read before it whose rows only the pending commit held
                Map<Integer, Long> start = new HashMap<>();
                for (String part : sourceOptions.getOrDefault("scan.startup.specific-offsets", "").split(";")) {
                    if (!part.isBlank()) {
                        String[] kv = part.split(",");
                        start.put(Integer.parseInt(kv[0].split(":")[1]), Long.parseLong(kv[1].split(":")[1]));
                    }
                }
                if (!start.isEmpty()) {
                    for (long m : missing) {
                        int p = (int) (m % parts);
                        if (!start.containsKey(p) || m / parts >= start.get(p)) {
                            throw new Scenarios.Mismatch("input " + m + " (partition " + p + " offset " + (m / parts)
                                    + ") is missing at or above the start " + start);
                        }
                    }
                }
                break;
            default:
                throw new Scenarios.Mismatch("unknown guarantee " + grade);
        }
    }
}
