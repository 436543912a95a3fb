package io.resumekit.conformance;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
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
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * KafkaSink scenarios (KS1–KS3, issue 28 item 7): a real KafkaSink {@code EXACTLY_ONCE} job ({@link
 * KafkaSinkJob}) on the shared real broker, ended in a child JVM ({@link KafkaSinkNode}) after a
 * checkpoint's pre-commit and before its commit, or by a stop-with-savepoint; then, case by case,
 * resumekit decides and the harness does what the decision says and reads the output topic with
 * {@code read_committed}. Flink and Kafka judge: what the output lost (and which records those
 * were, read back with {@code read_uncommitted}) must be what resumekit graded and named.
 *
 * <p>A case's {@code "test"}: {@code restore} (launch the chosen restore; optionally {@code
 * "waitAbort"} first, until the broker has aborted the checkpoint's transactions at their timeout),
 * {@code source-ahead} (the group's commits are the checkpoint's source position; each stage's
 * kafka-offsets candidate is judged, the last stage's is launched stateless), {@code stop-salvage}
 * (the chosen salvage of a stop-with-savepoint, launched stateless). The scenario file never says
 * what resumekit should answer.
 */
final class KafkaSinkKind extends ScenarioKind {
    static final String NAME = "kafka-sink";

    KafkaBroker broker;

    @Override
    String name() {
        return NAME;
    }

    @Override
    boolean alone() {
        return true;
    }

    @Override
    void vars(Scenarios s, Path w, String scenario, Map<String, String> vars) throws Exception {
        broker = KafkaBroker.shared(s.target);
        vars.put("${kafka}", broker.bootstrap());
        vars.put("${topic}", "in-" + scenario);
    }

    /** One case of the scenario as it runs: its job spec, its dirs and what the run left. */
    static final class Case {
        String name;
        JsonNode spec;
        ObjectNode job;
        Path jobDir;
        Path savepoints;
        JsonNode facts;
        Map<String, String> vars = new LinkedHashMap<>();
    }

    @Override
    void runAlone(Scenarios s, Path w, JsonNode sc, ObjectNode result) throws Exception {
        String name = sc.get("name").asText();
        String bootstrap = broker.bootstrap();
        JsonNode job = sc.get("job");
        int keys = job.path("keys").asInt(3);
        int par = job.path("parallelism").asInt(2);
        long records = job.path("records").asLong();
        String topic = "in-" + name;
        KafkaScenario.createAndFill(bootstrap, topic, keys, records);
        ObjectNode settings = sc.path("settings").isObject() ? ((ObjectNode) sc.get("settings")).deepCopy() : Flink.JSON.createObjectNode();
        ObjectNode spec = Flink.JSON.createObjectNode();
        Path control = w.resolve("run-0");
        spec.put("control", control.toString());
        spec.set("settings", settings);
        ArrayNode jobs = spec.putArray("jobs");
        List<Case> cases = new ArrayList<>();
        int k = 0;
        for (JsonNode c : sc.get("cases")) {
            Case cs = new Case();
            cs.name = c.get("case").asText();
            cs.spec = c;
            String jobId = Scenarios.jobId(name, k++);
            // every case's job under one checkpoint root and one savepoint dir (as --export writes them)
            cs.jobDir = w.resolve("ck").resolve(jobId);
            cs.savepoints = w.resolve("sp");
            ObjectNode cj = Flink.JSON.createObjectNode();
            cj.put("bootstrap", bootstrap);
            cj.put("topic", topic);
            cj.put("group", "g-" + name + "-" + cs.name);
            cj.put("out", "out-" + name + "-" + cs.name);
            cj.put("prefix", "tx-" + name + "-" + cs.name);
            cj.put("timeoutMs", c.get("timeoutMs").asLong());
            cj.put("keys", keys);
            cj.put("parallelism", par);
            cs.job = cj;
            KafkaSinkFacts.createTopic(bootstrap, cj.get("out").asText(), par);
            ObjectNode j = jobs.addObject();
            j.put("name", cs.name);
            j.put("jobId", jobId);
            j.put("checkpoints", Scenarios.flinkUri(w.resolve("ck")));
            j.put("savepoints", Scenarios.flinkUri(cs.savepoints));
            j.set("job", cj);
            j.set("variant", c.path("variant"));
            j.put("end", c.path("end").asText("stall"));
            j.put("sourceAhead", c.path("test").asText().equals("source-ahead"));
            j.put("waitCheckpoints", c.path("waitCheckpoints").asInt(2));
            cs.vars.put("${jobdir}", cs.jobDir.toString());
            cs.vars.put("${savepoints}", cs.savepoints.toString());
            cs.vars.put("${group}", cj.get("group").asText());
            cs.vars.put("${prefix}", cj.get("prefix").asText());
            cases.add(cs);
        }
        Path specFile = w.resolve("run-0.json");
        Flink.writeJson(specFile, spec);
        ObjectNode flink = result.putObject("flink");
        try (ChildJvm c = ChildJvm.start(KafkaSinkNode.class.getName(), specFile, control)) {
            long end = System.nanoTime() + Duration.ofSeconds(240).toNanos();
            while (!Files.exists(control.resolve("ready-to-kill"))) {
                if (!c.process.isAlive()) {
                    throw new Scenarios.Mismatch("the run's child JVM exited " + c.process.exitValue() + ": "
                            + ChildJvm.tail(control.resolve("facts.json")) + " " + ChildJvm.tail(control.resolve("stderr.log")));
                }
                if (System.nanoTime() > end) {
                    throw new Scenarios.Mismatch("the run timed out; stderr: " + ChildJvm.tail(control.resolve("stderr.log")));
                }
                Thread.sleep(50);
            }
            c.kill();
        }
        flink.put("killed_at", Instant.now().toString());
        JsonNode facts = Flink.JSON.readTree(control.resolve("facts.json").toFile());
        flink.set("run", facts);
        for (Case cs : cases) {
            cs.facts = facts.get(cs.name);
        }
        ObjectNode rsettings = settings.deepCopy();
        rsettings.put("execution.checkpointing.dir", Scenarios.flinkUri(w.resolve("restores/ck")));
        rsettings.put("execution.checkpointing.savepoint-dir", Scenarios.flinkUri(w.resolve("restores/sp")));
        Configuration rconf = Flink.configuration(rsettings);
        ArrayNode out = result.putArray("cases");
        List<String> whys = new ArrayList<>();
        try (MiniCluster mc = Flink.start(rconf)) {
            for (Case cs : cases) {
                ObjectNode co = out.addObject();
                co.put("case", cs.name);
                ObjectNode rk = co.putObject("resumekit");
                ObjectNode fl = co.putObject("flink");
                try {
                    switch (cs.spec.get("test").asText()) {
                        case "restore":
                            restore(s, w, sc, cs, rconf, mc, rk, fl);
                            break;
                        case "source-ahead":
                            sourceAhead(s, w, sc, cs, rconf, mc, rk, fl);
                            break;
                        case "stop-salvage":
                            stopSalvage(s, w, sc, cs, rconf, mc, rk, fl);
                            break;
                        default:
                            throw new IllegalArgumentException("case " + cs.name + ": unknown test " + cs.spec.get("test"));
                    }
                    co.put("passed", true);
                } catch (Scenarios.Mismatch m) {
                    co.put("passed", false);
                    co.put("why", m.getMessage());
                    whys.add(cs.name + ": " + m.getMessage());
                }
            }
        }
        result.put("passed", whys.isEmpty());
        if (!whys.isEmpty()) {
            result.put("why", String.join("; ", whys));
        }
        if (s.exportDir != null) {
            // the trees as Flink left them, each stalled checkpoint that a restore here restored
            // marked so (TestRealFlink's view), the cases' facts in facts.json's result
            List<Scenarios.Snap> snaps = Scenarios.inventory(w);
            for (int i = 0; i < cases.size(); i++) {
                JsonNode restore = out.get(i).path("flink").path("restore");
                JsonNode at = cases.get(i).facts == null ? null : cases.get(i).facts.get("checkpoint");
                for (Scenarios.Snap sn : snaps) {
                    if (at != null && Scenarios.find(List.of(sn), at.asText()) != null && restore.has("restored")) {
                        sn.trial = Flink.JSON.createObjectNode().put("restorable", true).put("restoredId", restore.get("restored").asLong());
                    }
                }
            }
            Export.write(s.exportDir.resolve(name), w, snaps, result);
        }
    }

    // ------------------------------------------------------------------ tests

    /**
     * The chosen restore of the stalled checkpoint, launched as resumekit says, drained, and judged
     * by the output: nothing lost → resumekit must have said exactly-once (and a valid_until that is
     * the broker's transaction deadline, which the restore met); output lost → data-loss with
     * flink.sink-output-lost naming exactly the transactions whose records are missing.
     */
    void restore(Scenarios s, Path w, JsonNode sc, Case cs, Configuration rconf, MiniCluster mc, ObjectNode rk, ObjectNode fl)
            throws Exception {
        long ck = stalledCheckpoint(cs);
        JsonNode atKill = cs.facts.get("transactions_at_kill");
        List<String> pending = KafkaSinkFacts.inState(atKill, "Ongoing");
        fl.set("pending_at_kill", Flink.JSON.valueToTree(pending));
        if (pending.isEmpty()) {
            throw new Scenarios.Mismatch("no transaction of checkpoint " + ck + " was open at the kill (" + atKill + "): the crash point missed");
        }
        long deadline = Long.MAX_VALUE;
        for (String id : pending) {
            deadline = Math.min(deadline, atKill.get(id).get("start_ms").asLong() + atKill.get(id).get("timeout_ms").asLong());
        }
        fl.put("broker_deadline", Instant.ofEpochMilli(deadline).toString());
        if (cs.spec.path("waitAbort").asBoolean(false)) {
            waitAborted(cs, pending, deadline, fl);
        }
        JsonNode dec = resolve(s, w, cs, "restore", cs.spec.get("resolve"), rk);
        JsonNode chosen = dec.path("chosen");
        if (chosen.isMissingNode() || chosen.isNull()) {
            throw new Scenarios.Mismatch("resumekit chose nothing (exit " + rk.path("exit").asInt() + ")");
        }
        // what Flink's restore meets on the broker, and what it does
        fl.set("broker_before_restore", KafkaSinkFacts.describe(cs.job.get("bootstrap").asText(), pending));
        SavepointRestoreSettings restore = restoreOf(chosen);
        if (!restore.restoreSavepoint()) {
            throw new Scenarios.Mismatch("resumekit's launch restores nothing (" + chosen.path("launch") + "); its choice was " + chosen.path("kind").asText());
        }
        JobGraph jg = KafkaSinkJob.build(rconf, cs.job, Flink.JSON.createObjectNode(), null, null);
        jg.setSavepointRestoreSettings(restore);
        long submitted = System.currentTimeMillis();
        fl.put("restore_submitted", Instant.ofEpochMilli(submitted).toString());
        SinkLog.clear();
        ObjectNode ran = runToEnd(mc, jg, cs.job, sc.get("job").get("records").asLong(), Scenarios.flinkUri(w.resolve("restores/sp-" + cs.name)), Duration.ofSeconds(120));
        fl.set("restore", ran);
        fl.set("committer_log", Flink.JSON.valueToTree(SinkLog.lines()));
        fl.set("committer_outcome", outcome(pending, SinkLog.lines()));
        fl.set("broker_after_restore", KafkaSinkFacts.describe(cs.job.get("bootstrap").asText(), pending));
        if (!ran.path("status").asText().equals("FINISHED")) {
            throw new Scenarios.Mismatch("the restored job ended " + ran.path("status").asText() + ": " + ran.path("error").asText());
        }
        if (ran.path("restored").asLong(-1) != ck) {
            throw new Scenarios.Mismatch("the restored job restored checkpoint " + ran.path("restored") + ", not the stalled checkpoint " + ck);
        }
        Judged j = judge(cs, sc, ck, atKill, pending, fl);
        String grade = chosen.path("guarantee").asText();
        if (j.missing.isEmpty()) {
            fl.put("flink_did", "committed checkpoint " + ck + "'s transactions on restore: every input once, counts continue");
            if (!grade.equals("exactly-once")) {
                throw new Scenarios.Mismatch("Flink's restore lost nothing (every input once, read_committed), resumekit graded " + grade);
            }
            if (!j.countsContinue) {
                throw new Scenarios.Mismatch("every input once, but the per-key counts do not continue across the restore: " + j.countsWhy);
            }
            String vu = chosen.path("valid_until").asText("");
            if (vu.isEmpty()) {
                throw new Scenarios.Mismatch("exactly-once with transactions open until " + Instant.ofEpochMilli(deadline)
                        + ", but no valid_until");
            }
            if (Instant.parse(vu).toEpochMilli() != deadline || chosen.path("valid_until_assumed").asBoolean(false)) {
                throw new Scenarios.Mismatch("valid_until " + vu + (chosen.path("valid_until_assumed").asBoolean(false) ? " (assumed)" : "")
                        + ", the broker's earliest transaction deadline (start + transaction.timeout.ms) is " + Instant.ofEpochMilli(deadline));
            }
            if (submitted > deadline) {
                throw new Scenarios.Mismatch("the restore was submitted after the transaction deadline, yet lost nothing: the case tested nothing");
            }
            return;
        }
        fl.put("flink_did", "dropped checkpoint " + ck + "'s transactions on restore (" + j.missing.size()
                + " inputs missing, read_committed); the job went on and " + ran.path("status").asText());
        String vu = chosen.path("valid_until").asText("");
        if (!grade.equals("data-loss") && !vu.isEmpty() && Instant.parse(vu).toEpochMilli() < submitted) {
            throw new Scenarios.Mismatch("the harness restored at " + Instant.ofEpochMilli(submitted) + ", after resumekit's valid_until " + vu
                    + " (the machine too slow for the case's transaction timeout): the case tested nothing");
        }
        if (!grade.equals("data-loss")) {
            throw new Scenarios.Mismatch("Flink's restore lost " + j.missing.size() + " inputs (first " + j.missing.first()
                    + "), resumekit graded " + grade + (chosen.has("valid_until") ? " valid until " + chosen.get("valid_until").asText() : "")
                    + " (restore submitted " + Instant.ofEpochMilli(submitted) + ")");
        }
        if (!Scenarios.hasWarning(chosen, "flink.sink-output-lost")) {
            throw new Scenarios.Mismatch("data-loss without flink.sink-output-lost: " + rk.path("warnings"));
        }
        TreeMap<String, Long> reported = new TreeMap<>();
        for (JsonNode sink : chosen.path("position").path("sinks")) {
            for (JsonNode t : sink.path("transactions")) {
                if (t.path("verdict").asText().equals("lost")) {
                    reported.put(t.path("transactional_id").asText(), t.path("checkpoint_id").asLong());
                }
            }
        }
        rk.set("reported_lost", Flink.JSON.valueToTree(reported));
        matchReported(cs, ck, atKill, pending, reported, warningText(chosen, "flink.sink-output-lost"), j);
        fl.put("lost_as_reported", j.missing.size());
    }

    /**
     * The source-ahead race: the group committed checkpoint N's source position, the sink never
     * committed N. Each stage's kafka-offsets candidate must not be graded better than the output
     * of a stateless start at the group's commits shows; the last stage's is launched.
     */
    void sourceAhead(Scenarios s, Path w, JsonNode sc, Case cs, Configuration rconf, MiniCluster mc, ObjectNode rk, ObjectNode fl)
            throws Exception {
        long ck = stalledCheckpoint(cs);
        JsonNode atKill = cs.facts.get("transactions_at_kill");
        List<String> pending = KafkaSinkFacts.inState(atKill, "Ongoing");
        fl.set("pending_at_kill", Flink.JSON.valueToTree(pending));
        fl.set("group_offsets_at_kill", cs.facts.get("group_offsets_at_kill"));
        fl.set("checkpoint_source_position", cs.facts.get("stalled").get("next"));
        if (pending.isEmpty()) {
            throw new Scenarios.Mismatch("no transaction of checkpoint " + ck + " was open at the kill (" + atKill + "): the crash point missed");
        }
        List<JsonNode> kafkaCands = new ArrayList<>();
        List<String> stageNames = new ArrayList<>();
        ArrayNode stages = rk.putArray("stages");
        for (JsonNode st : cs.spec.get("stages")) {
            ObjectNode so = stages.addObject();
            so.put("stage", st.get("stage").asText());
            JsonNode dec = resolve(s, w, cs, st.get("stage").asText(), st.get("resolve"), so);
            JsonNode kc = null;
            for (JsonNode o : dec.path("considered")) {
                if (o.path("candidate").path("kind").asText().equals("kafka-offsets")) {
                    kc = o.get("candidate");
                }
            }
            if (kc == null) {
                throw new Scenarios.Mismatch("stage " + st.get("stage").asText() + ": no kafka-offsets candidate among " + dec.path("considered"));
            }
            ObjectNode ko = so.putObject("kafka_offsets");
            ko.put("guarantee", kc.path("guarantee").asText());
            ArrayNode codes = ko.putArray("warnings");
            kc.path("warnings").forEach(x -> codes.add(x.path("code").asText()));
            ko.set("options", kc.path("launch").path("options"));
            kafkaCands.add(kc);
            stageNames.add(st.get("stage").asText());
        }
        JsonNode launch = kafkaCands.get(kafkaCands.size() - 1);
        if (!launch.path("launch").path("args").isEmpty()) {
            throw new Scenarios.Mismatch("a kafka-offsets start must not restore state, but its launch has args " + launch.path("launch").path("args"));
        }
        Map<String, String> hints = hints(launch);
        fl.set("hints", Flink.JSON.valueToTree(hints));
        JobGraph jg = KafkaSinkJob.build(rconf, cs.job, Flink.JSON.createObjectNode(), null, hints);
        SinkLog.clear();
        ObjectNode ran = runToEnd(mc, jg, cs.job, sc.get("job").get("records").asLong(), Scenarios.flinkUri(w.resolve("restores/sp-" + cs.name)), Duration.ofSeconds(120));
        fl.set("stateless_start", ran);
        fl.set("broker_after_start", KafkaSinkFacts.describe(cs.job.get("bootstrap").asText(), pending));
        if (!ran.path("status").asText().equals("FINISHED")) {
            throw new Scenarios.Mismatch("the stateless start ended " + ran.path("status").asText() + ": " + ran.path("error").asText());
        }
        Judged j = judge(cs, sc, ck, atKill, pending, fl);
        if (j.missing.isEmpty()) {
            fl.put("flink_did", "a stateless start at the group's commits lost nothing");
            for (int i = 0; i < kafkaCands.size(); i++) {
                if (kafkaCands.get(i).path("guarantee").asText().equals("data-loss")) {
                    throw new Scenarios.Mismatch("stage " + stageNames.get(i) + ": kafka-offsets graded data-loss, the stateless start lost nothing");
                }
            }
            return;
        }
        fl.put("flink_did", "a stateless start at the group's commits (checkpoint " + ck + "'s source position) aborted checkpoint "
                + ck + "'s open transactions (its writer aborts the prefix's lingering ids) and never re-read their input: "
                + j.missing.size() + " inputs missing, read_committed");
        for (int i = 0; i < kafkaCands.size(); i++) {
            String g = kafkaCands.get(i).path("guarantee").asText();
            if (!g.equals("data-loss")) {
                throw new Scenarios.Mismatch("stage " + stageNames.get(i) + ": kafka-offsets graded " + g + ", the stateless start at the group's commits lost "
                        + j.missing.size() + " inputs (first " + j.missing.first() + ")");
            }
        }
        // the loss is exactly the records of the pending transactions (all of checkpoint ck's)
        TreeMap<String, Long> all = new TreeMap<>();
        pending.forEach(id -> all.put(id, ck));
        matchReported(cs, ck, atKill, pending, all, null, j);
        fl.put("lost_as_pending", j.missing.size());
    }

    /** A stop-with-savepoint salvaged: the chosen stateless start, launched, judged by the output. */
    void stopSalvage(Scenarios s, Path w, JsonNode sc, Case cs, Configuration rconf, MiniCluster mc, ObjectNode rk, ObjectNode fl)
            throws Exception {
        fl.put("savepoint", cs.facts.path("savepoint").asText());
        JsonNode dec = resolve(s, w, cs, "salvage", cs.spec.get("resolve"), rk);
        JsonNode chosen = dec.path("chosen");
        if (chosen.isMissingNode() || chosen.isNull()) {
            throw new Scenarios.Mismatch("resumekit chose nothing (exit " + rk.path("exit").asInt() + ")");
        }
        if (!chosen.path("launch").path("args").isEmpty()) {
            throw new Scenarios.Mismatch("the case renames the source uid, so the savepoint cannot restore; resumekit chose a restore: " + chosen.path("launch"));
        }
        Map<String, String> hints = hints(chosen);
        fl.set("hints", Flink.JSON.valueToTree(hints));
        ObjectNode v = cs.spec.path("newJob").path("variant").isObject() ? ((ObjectNode) cs.spec.get("newJob").get("variant")).deepCopy()
                : Flink.JSON.createObjectNode();
        v.remove("slowMillis");
        JobGraph jg = KafkaSinkJob.build(rconf, cs.job, v, null, hints);
        ObjectNode ran = runToEnd(mc, jg, cs.job, sc.get("job").get("records").asLong(), Scenarios.flinkUri(w.resolve("restores/sp-" + cs.name)), Duration.ofSeconds(120));
        fl.set("salvage_start", ran);
        if (!ran.path("status").asText().equals("FINISHED")) {
            throw new Scenarios.Mismatch("the salvage start ended " + ran.path("status").asText() + ": " + ran.path("error").asText());
        }
        Judged j = judge(cs, sc, -1, Flink.JSON.createObjectNode(), List.of(), fl);
        String grade = chosen.path("guarantee").asText();
        rk.put("committed_by_stop", Scenarios.hasWarning(chosen, "salvage.sink-committed-by-stop"));
        if (!j.missing.isEmpty() || !j.twice.isEmpty()) {
            fl.put("flink_did", j.missing.size() + " inputs missing, " + j.twice.size() + " twice (read_committed)");
            if (!grade.equals("data-loss") && !j.missing.isEmpty()) {
                throw new Scenarios.Mismatch("the salvage start lost " + j.missing.size() + " inputs (first " + j.missing.first() + "), resumekit graded " + grade);
            }
            if (!j.twice.isEmpty() && (grade.equals("exact-input") || grade.equals("exactly-once"))) {
                throw new Scenarios.Mismatch("the salvage start delivered " + j.twice.size() + " inputs twice, resumekit graded " + grade);
            }
            return;
        }
        fl.put("flink_did", "the stop committed the savepoint's transactions before the job ended; the salvage start delivered every input once (read_committed)");
        if (!grade.equals("exact-input")) {
            throw new Scenarios.Mismatch("the salvage start delivered every input exactly once (read_committed), resumekit graded " + grade);
        }
        if (!Scenarios.hasWarning(chosen, "salvage.sink-committed-by-stop")) {
            throw new Scenarios.Mismatch("exact-input, but without salvage.sink-committed-by-stop naming what proved the stop: " + rk.path("warnings"));
        }
    }

    // ---------------------------------------------------------------- judging

    /** The output of both runs as read_committed reads it, against the input ids. */
    static final class Judged {
        TreeSet<Long> missing = new TreeSet<>();
        TreeSet<Long> twice = new TreeSet<>();
        boolean countsContinue = true;
        String countsWhy = "";
        List<KafkaSinkFacts.Rec> uncommitted;
    }

    static Judged judge(Case cs, JsonNode sc, long ck, JsonNode atKill, List<String> pending, ObjectNode fl) throws Exception {
        String bootstrap = cs.job.get("bootstrap").asText();
        String outTopic = cs.job.get("out").asText();
        long records = sc.get("job").get("records").asLong();
        List<KafkaSinkFacts.Rec> committed = KafkaSinkFacts.read(bootstrap, outTopic, true);
        Judged j = new Judged();
        j.uncommitted = KafkaSinkFacts.read(bootstrap, outTopic, false);
        Map<Long, Integer> copies = new HashMap<>();
        Map<Integer, List<Long>> counts = new TreeMap<>();
        for (KafkaSinkFacts.Rec r : committed) {
            copies.merge(r.id, 1, Integer::sum);
            counts.computeIfAbsent(r.key, x -> new ArrayList<>()).add(r.count);
        }
        for (long id = 0; id < records; id++) {
            int n = copies.getOrDefault(id, 0);
            if (n == 0) {
                j.missing.add(id);
            } else if (n > 1) {
                j.twice.add(id);
            }
        }
        for (Map.Entry<Integer, List<Long>> e : counts.entrySet()) {
            List<Long> c = new ArrayList<>(e.getValue());
            c.sort(null);
            for (int i = 0; i < c.size(); i++) {
                if (c.get(i) != i + 1) {
                    j.countsContinue = false;
                    j.countsWhy = "key " + e.getKey() + ": count " + c.get(i) + " at position " + (i + 1);
                    break;
                }
            }
        }
        fl.put("committed_records", committed.size());
        fl.put("uncommitted_records", j.uncommitted.size());
        fl.put("missing", j.missing.size());
        fl.put("delivered_twice", j.twice.size());
        if (!j.twice.isEmpty()) {
            throw new Scenarios.Mismatch(j.twice.size() + " inputs delivered twice (read_committed), first " + j.twice.first());
        }
        return j;
    }

    /**
     * The missing outputs must be exactly the records of the transactions reported lost: each
     * reported id one of checkpoint ck's pending transactions (open at the kill), and the missing
     * ids exactly the records a read_uncommitted reader finds in them (tagged epoch ck on the
     * partitions those transactions wrote).
     */
    static void matchReported(Case cs, long ck, JsonNode atKill, List<String> pending, Map<String, Long> reported, String text, Judged j)
            throws Scenarios.Mismatch {
        if (!new TreeSet<>(reported.keySet()).equals(new TreeSet<>(pending))) {
            throw new Scenarios.Mismatch("reported lost " + reported.keySet() + ", the transactions of checkpoint " + ck + " open at the kill were " + pending);
        }
        for (Map.Entry<String, Long> e : reported.entrySet()) {
            if (e.getValue() != ck) {
                throw new Scenarios.Mismatch("transaction " + e.getKey() + " reported for checkpoint " + e.getValue() + ", its records are checkpoint " + ck + "'s");
            }
            if (text != null && !text.contains(e.getKey())) {
                throw new Scenarios.Mismatch("the warning does not name transaction " + e.getKey() + ": " + text);
            }
        }
        if (text != null && !text.contains("checkpoint " + ck)) {
            throw new Scenarios.Mismatch("the warning does not name checkpoint " + ck + ": " + text);
        }
        TreeSet<Integer> parts = new TreeSet<>();
        String outTopic = cs.job.get("out").asText();
        for (String id : reported.keySet()) {
            for (JsonNode p : atKill.get(id).path("partitions")) {
                String tp = p.asText();
                if (!tp.startsWith(outTopic + "/")) {
                    throw new Scenarios.Mismatch("transaction " + id + " wrote " + tp + ", not the sink's topic " + outTopic);
                }
                parts.add(Integer.parseInt(tp.substring(outTopic.length() + 1)));
            }
        }
        TreeSet<Long> inThem = new TreeSet<>();
        for (KafkaSinkFacts.Rec r : j.uncommitted) {
            if (r.epoch == ck && parts.contains(r.partition)) {
                inThem.add(r.id);
            }
        }
        if (!inThem.equals(j.missing)) {
            TreeSet<Long> extra = new TreeSet<>(j.missing);
            extra.removeAll(inThem);
            TreeSet<Long> kept = new TreeSet<>(inThem);
            kept.removeAll(j.missing);
            throw new Scenarios.Mismatch(j.missing.size() + " inputs missing, the reported transactions (partitions " + parts + ") held "
                    + inThem.size() + ": missing but not in them " + first(extra) + ", in them but delivered " + first(kept));
        }
    }

    static String first(TreeSet<Long> s) {
        return s.isEmpty() ? "none" : s.size() + " (first " + s.first() + ")";
    }

    // ----------------------------------------------------------------- helpers

    static long stalledCheckpoint(Case cs) throws Scenarios.Mismatch {
        JsonNode st = cs.facts == null ? null : cs.facts.get("stalled");
        if (st == null) {
            throw new Scenarios.Mismatch("the run did not stall case " + cs.name + ": " + cs.facts);
        }
        return st.get("checkpoint").asLong();
    }

    /**
     * What the restore's committer did with each pending transaction, from its log: {@code
     * committed} (it logged the commit and no failure), or the exception it logged for it (the
     * connector then drops the committable and the job goes on).
     */
    static ObjectNode outcome(List<String> pending, List<String> log) {
        ObjectNode o = Flink.JSON.createObjectNode();
        for (String id : pending) {
            String what = "not attempted";
            for (String l : log) {
                if (!l.contains(id + "'") && !l.contains(id + ",") && !l.contains(id + "}") && !l.endsWith(id)) {
                    continue;
                }
                if (l.startsWith("DEBUG") && what.equals("not attempted")) {
                    what = "committed";
                } else if (l.startsWith("ERROR") || l.startsWith("WARN")) {
                    int b = l.indexOf('[');
                    what = "failed, dropped: " + (b >= 0 ? l.substring(b + 1, l.indexOf(']', b)) : l);
                }
            }
            o.put(id, what);
        }
        return o;
    }

    /** Waits (bounded) until the broker no longer has the pending transactions open. */
    static void waitAborted(Case cs, List<String> pending, long deadline, ObjectNode fl) throws Exception {
        String bootstrap = cs.job.get("bootstrap").asText();
        long t0 = System.currentTimeMillis();
        long until = Math.max(deadline, t0) + 60_000;
        while (true) {
            ObjectNode d = KafkaSinkFacts.describe(bootstrap, pending);
            if (KafkaSinkFacts.inState(d, "Ongoing", "PrepareCommit", "PrepareAbort").isEmpty()) {
                fl.set("broker_after_timeout", d);
                fl.put("waited_for_abort_ms", System.currentTimeMillis() - t0);
                return;
            }
            if (System.currentTimeMillis() > until) {
                throw new Scenarios.Mismatch("the broker did not end transactions " + pending + " within 60 s of their deadline: " + d);
            }
            Thread.sleep(250);
        }
    }

    /** resumectl resolve with a case's args (its variables substituted), the decision read back. */
    static JsonNode resolve(Scenarios s, Path w, Case cs, String stage, JsonNode args, ObjectNode rk) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(s.resumectl.toString());
        cmd.add("resolve");
        for (JsonNode a : args) {
            cmd.add(Scenarios.subst(a.asText(), cs.vars));
        }
        cmd.addAll(List.of("--json", "--timeout", "60s"));
        rk.set("args", Flink.JSON.valueToTree(cmd.subList(2, cmd.size())));
        Path outFile = w.resolve("resolve-" + cs.name + "-" + stage + ".json");
        Path errFile = w.resolve("resolve-" + cs.name + "-" + stage + ".err");
        Process p = new ProcessBuilder(cmd).redirectOutput(outFile.toFile()).redirectError(errFile.toFile()).start();
        if (!p.waitFor(90, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new Scenarios.Mismatch("resumectl resolve did not end within 90 s");
        }
        rk.put("exit", p.exitValue());
        JsonNode dec;
        try {
            dec = Flink.JSON.readTree(outFile.toFile());
        } catch (Exception e) {
            throw new Scenarios.Mismatch("resumectl resolve exit " + p.exitValue() + " printed no JSON: " + Files.readString(errFile));
        }
        JsonNode chosen = dec.path("chosen");
        rk.put("kind", chosen.path("kind").asText(null));
        rk.put("guarantee", chosen.path("guarantee").asText(null));
        rk.put("valid_until", chosen.path("valid_until").asText(null));
        if (chosen.path("valid_until_assumed").asBoolean(false)) {
            rk.put("valid_until_assumed", true);
        }
        ArrayNode warn = rk.putArray("warnings");
        chosen.path("warnings").forEach(x -> warn.add(x.path("code").asText()));
        if (chosen.path("position").has("sinks")) {
            rk.set("sinks", chosen.path("position").get("sinks"));
        }
        return dec;
    }

    static String warningText(JsonNode chosen, String code) {
        StringBuilder b = new StringBuilder();
        for (JsonNode x : chosen.path("warnings")) {
            if (x.path("code").asText().equals(code)) {
                b.append(x.path("text").asText()).append('\n');
            }
        }
        return b.toString();
    }

    static Map<String, String> hints(JsonNode candidate) {
        Map<String, String> hints = new LinkedHashMap<>();
        Iterator<Map.Entry<String, JsonNode>> it = candidate.path("launch").path("options").fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            hints.put(e.getKey(), e.getValue().asText());
        }
        return hints;
    }

    /** The restore a candidate's launch means to Flink: its args through Flink's CLI parser, its config through fromConfiguration. */
    static SavepointRestoreSettings restoreOf(JsonNode chosen) throws Exception {
        List<String> args = new ArrayList<>();
        chosen.path("launch").path("args").forEach(a -> args.add(a.asText()));
        SavepointRestoreSettings fromArgs = SavepointRestoreSettings.none();
        if (!args.isEmpty()) {
            CommandLine cl = CliFrontendParser.parse(CliFrontendParser.getRunCommandOptions(), args.toArray(new String[0]), true);
            fromArgs = CliFrontendParser.createSavepointRestoreSettings(cl);
        }
        Map<String, String> cfg = new HashMap<>();
        chosen.path("launch").path("config").fields().forEachRemaining(e -> cfg.put(e.getKey(), e.getValue().asText()));
        SavepointRestoreSettings fromConfig = SavepointRestoreSettings.fromConfiguration(Configuration.fromMap(cfg));
        if (fromArgs.restoreSavepoint() && fromConfig.restoreSavepoint() && !fromArgs.equals(fromConfig)) {
            throw new Scenarios.Mismatch("Launch.Args and Launch.Config mean different restores to Flink: " + fromArgs + " vs " + fromConfig);
        }
        return fromArgs.restoreSavepoint() ? fromArgs : fromConfig;
    }

    /**
     * Submits a job and waits for its end: status, restored checkpoint id, error. A restored
     * bounded KafkaSource never ends by itself (its enumerator, restored with the initial discovery
     * done, never tells the readers there are no more splits), so once the job's group has
     * committed every input offset (the checkpoint that read the last record is complete) the job
     * is stopped with a savepoint, which commits the sink's last transactions before it ends.
     */
    static ObjectNode runToEnd(MiniCluster mc, JobGraph jg, JsonNode cj, long records, String savepoints, Duration timeout)
            throws Exception {
        JobID id = new JobID();
        jg.setJobID(id);
        ObjectNode o = Flink.JSON.createObjectNode();
        mc.submitJob(jg).get(60, TimeUnit.SECONDS);
        long end = System.nanoTime() + timeout.toNanos();
        int parts = cj.path("keys").asInt(3);
        TreeMap<Integer, Long> inputEnd = new TreeMap<>();
        for (int p = 0; p < parts; p++) {
            inputEnd.put(p, records / parts + (p < records % parts ? 1 : 0));
        }
        java.util.concurrent.CompletableFuture<String> stop = null;
        long nextPoll = 0;
        JobStatus st;
        while (!(st = Flink.status(mc, id)).isGloballyTerminalState()) {
            RestoredCheckpointStats r = Flink.restored(mc, id);
            if (r != null) {
                o.put("restored", r.getCheckpointId());
            }
            if (stop == null && System.nanoTime() > nextPoll) {
                nextPoll = System.nanoTime() + Duration.ofMillis(300).toNanos();
                TreeMap<Integer, Long> c = KafkaSinkFacts.committed(cj.get("bootstrap").asText(), cj.get("group").asText(), cj.get("topic").asText());
                if (c.equals(inputEnd)) {
                    o.put("ended_by", "stop-with-savepoint once the group committed the input's end " + inputEnd);
                    stop = mc.stopWithSavepoint(id, savepoints, false, org.apache.flink.core.execution.SavepointFormatType.CANONICAL);
                }
            }
            if (System.nanoTime() > end) {
                mc.cancelJob(id).get(30, TimeUnit.SECONDS);
                o.put("status", "TIMEOUT");
                o.put("error", "did not finish within " + timeout);
                return o;
            }
            Thread.sleep(50);
        }
        if (stop != null && stop.isDone() && !stop.isCompletedExceptionally()) {
            o.put("savepoint", stop.get());
        } else if (stop != null) {
            o.put("ended_by", "itself, before the stop-with-savepoint asked once the group committed the input's end " + inputEnd);
        }
        JobResult jr = mc.requestJobResult(id).get(30, TimeUnit.SECONDS);
        o.put("status", st.name());
        jr.getSerializedThrowable().ifPresent(x -> o.put("error", Flink.causes(x.deserializeError(KafkaSinkKind.class.getClassLoader()))));
        return o;
    }

    /** Records what flink-connector-kafka's KafkaCommitter logs (its commits and failures) in this JVM. */
    static final class SinkLog extends AbstractAppender {
        private static final List<String> LINES = new ArrayList<>();
        private static boolean installed;

        private SinkLog() {
            super("conformance-sink-log", null, null, true, Property.EMPTY_ARRAY);
        }

        static synchronized void clear() {
            if (!installed) {
                LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
                SinkLog a = new SinkLog();
                a.start();
                // the committer's class in connector 3.x and in 4.x/5.x: its DEBUG "Committing Kafka
                // transaction" lines and its failures; WARN and above still reach the console
                for (String name : List.of("org.apache.flink.connector.kafka.sink.KafkaCommitter",
                        "org.apache.flink.connector.kafka.sink.internal.KafkaCommitter")) {
                    LoggerConfig lc = new LoggerConfig(name, Level.DEBUG, false);
                    lc.addAppender(a, Level.DEBUG, null);
                    var console = ctx.getConfiguration().getAppender("err");
                    if (console != null) {
                        lc.addAppender(console, Level.WARN, null);
                    }
                    ctx.getConfiguration().addLogger(name, lc);
                }
                ctx.updateLoggers();
                installed = true;
            }
            synchronized (LINES) {
                LINES.clear();
            }
        }

        @Override
        public void append(LogEvent e) {
            String logger = e.getLoggerName();
            String m = e.getLevel() + " " + logger.substring(logger.lastIndexOf('.') + 1) + ": "
                    + (e.getThrown() == null ? "" : "[" + e.getThrown().getClass().getSimpleName() + "] ") + e.getMessage().getFormattedMessage();
            synchronized (LINES) {
                if (LINES.size() < 200) {
                    LINES.add(m.length() > 600 ? m.substring(0, 600) + "…" : m);
                }
            }
        }

        static List<String> lines() {
            synchronized (LINES) {
                return new ArrayList<>(LINES);
            }
        }
    }
}
