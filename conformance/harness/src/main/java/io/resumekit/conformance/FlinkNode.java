package io.resumekit.conformance;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.checkpoint.CompletedCheckpointStats;
import org.apache.flink.runtime.checkpoint.RestoredCheckpointStats;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.SavepointRestoreSettings;
import org.apache.flink.runtime.minicluster.MiniCluster;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A Flink "JobManager" in a child JVM: starts a MiniCluster, submits the count job, performs the
 * run's actions (wait for checkpoints, savepoints, stop-with-savepoint, crash points), and writes
 * what Flink completed to {@code facts.json} after every action. A crash action arms a crash point
 * and, once Flink is stuck there, touches {@code ready-to-kill}: the parent SIGKILLs this JVM, so
 * in-progress checkpoints stay on disk exactly as a JobManager crash leaves them.
 *
 * <p>Usage: {@code FlinkNode SPEC.json} (written by the harness; see {@link Scenarios}).
 */
public final class FlinkNode {
    private FlinkNode() {}

    public static void main(String[] args) throws Exception {
        JsonNode spec = Flink.JSON.readTree(Paths.get(args[0]).toFile());
        Path control = Paths.get(spec.get("control").asText());
        Files.createDirectories(control);
        System.setProperty("conformance.control", control.toString());
        Path factsFile = control.resolve("facts.json");
        ObjectNode facts = Flink.JSON.createObjectNode();
        Configuration conf = Flink.configuration(spec.get("settings"));
        try (MiniCluster mc = Flink.start(conf)) {
            if (SqlPlanJob.is(spec.get("job")) && spec.get("job").path("recompilePlan").asBoolean(false)) {
                // the plan as this run's Flink compiles it: an upgrade's 1.20 run writes the 1.20 plan
                // that the 2.x trials and new job then load (U5)
                JsonNode job = spec.get("job");
                Files.writeString(Paths.get(job.get("plan").asText()),
                        SqlPlanJob.pretty(Flink.JSON.readTree(SqlPlanJob.compile(job, job.get("sql").asText()))));
            }
            JobGraph jg = CountJob.build(conf, spec.get("job"), spec.path("variant"), spec.get("journal").asText(), spec.get("tag").asText());
            JobID id = JobID.fromHexString(spec.get("jobId").asText());
            jg.setJobID(id);
            JsonNode r = spec.get("restore");
            if (r != null && !r.isNull()) {
                jg.setSavepointRestoreSettings(FlinkLine.restore(r.get("path").asText(),
                        r.path("allowNonRestoredState").asBoolean(false), r.path("claimMode").asText("NO_CLAIM")));
            }
            facts.put("jobId", id.toHexString());
            facts.put("flinkVersion", FlinkLine.version()); // the run's Flink (a run "onFlink" the other line)
            mc.submitJob(jg).get(60, TimeUnit.SECONDS);
            Flink.waitRunning(mc, id, Duration.ofSeconds(60));
            ArrayNode savepoints = facts.putArray("savepoints");
            for (JsonNode a : spec.get("actions")) {
                if (a.has("waitCheckpoints")) {
                    waitCheckpoints(mc, id, a.get("waitCheckpoints").asInt());
                } else if (a.has("waitOutput")) {
                    // committed journal files: the job has really processed input
                    int n = a.get("waitOutput").asInt();
                    Path journal = Paths.get(spec.get("journal").asText());
                    Flink.await(n + " committed journal files", Duration.ofSeconds(90), () -> {
                        try (var s = Files.list(journal)) {
                            return s.filter(f -> !f.getFileName().toString().startsWith(".")).count() >= n;
                        } catch (java.io.IOException e) {
                            return false;
                        }
                    });
                } else if (a.has("savepoint")) {
                    savepoint(mc, id, spec, a.get("savepoint").asText(), false, savepoints);
                } else if (a.has("stopWithSavepoint")) {
                    savepoint(mc, id, spec, a.get("stopWithSavepoint").asText(), true, savepoints);
                    record(facts, mc, id);
                    Flink.writeJson(factsFile, facts);
                    Files.writeString(control.resolve("done"), "stopped");
                    return;
                } else if (a.has("crash")) {
                    String how = a.get("crash").asText();
                    if (how.equals("block")) {
                        awaitBlocked(control, spec, a.path("settleMillis").asLong(500));
                    } else if (how.equals("commit")) {
                        // F13: the next completed checkpoint's first non-empty commit halts the JVM
                        // (exit 137) before it writes: _metadata written, transactions not committed.
                        record(facts, mc, id);
                        Flink.writeJson(factsFile, facts);
                        Files.writeString(control.resolve("expect-halt"), "1");
                        Files.writeString(control.resolve("arm-commit-halt"), "1");
                        while (true) {
                            Thread.sleep(60_000);
                        }
                    } else if (how.equals("now")) {
                        // nothing to arm: kill where it stands
                    } else {
                        throw new IllegalArgumentException("unknown crash " + how);
                    }
                    record(facts, mc, id);
                    Flink.writeJson(factsFile, facts);
                    Files.writeString(control.resolve("ready-to-kill"), "1");
                    while (true) {
                        Thread.sleep(60_000);
                    }
                } else {
                    throw new IllegalArgumentException("unknown action " + a);
                }
                record(facts, mc, id);
                Flink.writeJson(factsFile, facts);
            }
            record(facts, mc, id);
            Flink.writeJson(factsFile, facts);
            Files.writeString(control.resolve("done"), "actions done");
        } catch (Throwable t) {
            facts.put("error", Flink.causes(t));
            Flink.writeJson(factsFile, facts);
            t.printStackTrace();
            Runtime.getRuntime().halt(3);
        }
        Runtime.getRuntime().halt(0);
    }

    /** Waits (60 s at most) until the job has completed {@code n} more checkpoints. */
    static void waitCheckpoints(MiniCluster mc, JobID id, int n) throws Exception {
        int have = Flink.completed(mc, id).size();
        Flink.await(n + " more completed checkpoints", Duration.ofSeconds(60), () -> Flink.completed(mc, id).size() >= have + n);
    }

    /**
     * Takes a savepoint of format {@code format} into the spec's {@code savepointDir}, a
     * stop-with-savepoint when {@code stop}; adds it to {@code savepoints} and returns its path.
     */
    static String savepoint(MiniCluster mc, JobID id, JsonNode spec, String format, boolean stop, ArrayNode savepoints)
            throws Exception {
        String dir = spec.get("savepointDir").asText();
        SavepointFormatType f = SavepointFormatType.valueOf(format);
        String p = (stop ? mc.stopWithSavepoint(id, dir, false, f) : mc.triggerSavepoint(id, dir, false, f)).get(60, TimeUnit.SECONDS);
        savepoints.addObject().put("path", p).put("format", format).put("stop", stop);
        return p;
    }

    /**
     * Arms the {@code block} crash point ({@link CrashPoint}) and waits until subtask 0 blocks in a
     * snapshot and every other {@code block} subtask has seen the checkpoints before it resolved (their
     * commits ran), then {@code settleMillis} for the other subtasks' parts of the blocked checkpoint:
     * a checkpoint stays in progress and no later one completes.
     */
    static void awaitBlocked(Path control, JsonNode spec, long settleMillis) throws Exception {
        Files.writeString(control.resolve("arm-block"), "1");
        Flink.await("a blocked snapshot", Duration.ofSeconds(60), () -> {
            try (var s = Files.list(control)) {
                return s.anyMatch(f -> f.getFileName().toString().startsWith("blocked-"));
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        // Every other block subtask (and so its chained sink committer) must have
        // seen the checkpoints subtask 0 saw resolved: their commits ran, so the
        // crash is mid-checkpoint, not between a _metadata and its commit.
        long resolved;
        try (var s = Files.list(control)) {
            Path b = s.filter(f -> f.getFileName().toString().startsWith("blocked-")).findFirst().orElseThrow();
            resolved = Long.parseLong(Files.readString(b).trim());
        }
        JsonNode v = spec.path("variant");
        JsonNode j = spec.get("job");
        int blockPar = v.has("blockParallelism") ? v.get("blockParallelism").asInt()
                : v.has("parallelism") ? v.get("parallelism").asInt() : j.path("parallelism").asInt(2);
        for (int st = 0; st < blockPar; st++) {
            final int sub = st;
            Flink.await("block subtask " + sub + " to see checkpoint " + resolved + " resolved",
                    Duration.ofSeconds(60), () -> CrashPoint.resolvedOf(control, sub) >= resolved);
        }
        // Let the other subtasks finish their part of the blocked checkpoint.
        Thread.sleep(settleMillis);
    }

    static void record(ObjectNode facts, MiniCluster mc, JobID id) {
        List<CompletedCheckpointStats> cs = Flink.completed(mc, id);
        facts.set("completed", Flink.checkpointsJson(cs));
        RestoredCheckpointStats r = Flink.restored(mc, id);
        if (r != null) {
            facts.put("restoredId", r.getCheckpointId());
            facts.put("restoredPath", r.getExternalPath());
        }
    }
}
