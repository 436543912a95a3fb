package io.resumekit.conformance;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.runtime.minicluster.MiniCluster;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The JobManager of a record scenario ({@link RecordKind}), in a child JVM: one MiniCluster, and in it
 * one count job after another, each with its actions. Unlike {@link FlinkNode} the JobManager is not
 * killed mid-run: the record scenarios look at what a live or cleanly ended JobManager records.
 *
 * <p>A job's actions: {@code waitCheckpoints N}, {@code savepoint FORMAT}, {@code stopWithSavepoint
 * FORMAT} (the job ends FINISHED), {@code awaitJobResult "clean"} (the job's JobResultStore entry
 * {@code <job-result-store.storage-path>/<job>.json} exists: its cleanup is done), and {@code hold
 * "block"} (the block crash point holds a checkpoint in progress, so no later one completes; the
 * JobManager keeps running with the job RUNNING and its REST API up until the parent kills the JVM).
 * A job's {@code restoreFrom "stopSavepoint"} restores the previous job's stop-with-savepoint.
 *
 * <p>Writes {@code facts.json} ({@code rest}: the REST API's URL; {@code jobs}: per job its id,
 * completed checkpoints and savepoints, restored checkpoint, JobResultStore entry, final status) and
 * touches {@code holding} or {@code done}.
 *
 * <p>Usage: {@code RecordNode SPEC.json} (written by {@link RecordKind}).
 */
public final class RecordNode {
    private RecordNode() {}

    public static void main(String[] args) throws Exception {
        JsonNode spec = Flink.JSON.readTree(Paths.get(args[0]).toFile());
        Path control = Paths.get(spec.get("control").asText());
        Files.createDirectories(control);
        System.setProperty("conformance.control", control.toString());
        Path factsFile = control.resolve("facts.json");
        ObjectNode facts = Flink.JSON.createObjectNode();
        Configuration conf = Flink.configuration(spec.get("settings"));
        try (MiniCluster mc = Flink.start(conf)) {
            facts.put("rest", mc.getRestAddress().get(30, TimeUnit.SECONDS).toString());
            ArrayNode jobs = facts.putArray("jobs");
            String stopSavepoint = null;
            int i = 0;
            for (JsonNode js : spec.get("jobs")) {
                JobID id = JobID.fromHexString(js.get("jobId").asText());
                JobGraph jg = CountJob.build(conf, spec.get("job"), spec.path("variant"),
                        spec.get("journal").asText() + "-" + i, "job" + i);
                jg.setJobID(id);
                ObjectNode jf = jobs.addObject();
                jf.put("jobId", id.toHexString());
                if (js.path("restoreFrom").asText("").equals("stopSavepoint")) {
                    if (stopSavepoint == null) {
                        throw new IllegalStateException("job " + i + " restores the previous job's stop-with-savepoint, which took none");
                    }
                    jg.setSavepointRestoreSettings(FlinkLine.restore(stopSavepoint, false, "NO_CLAIM"));
                }
                mc.submitJob(jg).get(60, TimeUnit.SECONDS);
                Flink.waitRunning(mc, id, Duration.ofSeconds(60));
                ArrayNode savepoints = jf.putArray("savepoints");
                for (JsonNode a : js.get("actions")) {
                    if (a.has("waitCheckpoints")) {
                        FlinkNode.waitCheckpoints(mc, id, a.get("waitCheckpoints").asInt());
                    } else if (a.has("savepoint")) {
                        FlinkNode.savepoint(mc, id, spec, a.get("savepoint").asText(), false, savepoints);
                    } else if (a.has("stopWithSavepoint")) {
                        FlinkNode.record(jf, mc, id);
                        stopSavepoint = FlinkNode.savepoint(mc, id, spec, a.get("stopWithSavepoint").asText(), true, savepoints);
                        JobResult jr = mc.requestJobResult(id).get(60, TimeUnit.SECONDS);
                        jf.put("success", jr.isSuccess());
                    } else if (a.has("awaitJobResult")) {
                        Path entry = jobResultEntry(spec, id);
                        jf.put("jobResultEntry", entry.toString());
                        Flink.await("the JobResultStore's clean entry " + entry, Duration.ofSeconds(60), () -> Files.exists(entry));
                    } else if (a.has("hold")) {
                        FlinkNode.awaitBlocked(control, spec, a.path("settleMillis").asLong(500));
                        FlinkNode.record(jf, mc, id);
                        jf.put("status", Flink.status(mc, id).name());
                        Flink.writeJson(factsFile, facts);
                        Files.writeString(control.resolve("holding"), "1");
                        while (true) {
                            Thread.sleep(60_000);
                        }
                    } else {
                        throw new IllegalArgumentException("unknown action " + a);
                    }
                    Flink.writeJson(factsFile, facts);
                }
                if (!jf.has("completed")) {
                    FlinkNode.record(jf, mc, id);
                }
                jf.put("status", Flink.status(mc, id).name());
                Flink.writeJson(factsFile, facts);
                i++;
            }
            Flink.writeJson(factsFile, facts);
            Files.writeString(control.resolve("done"), "jobs done");
        } catch (Throwable t) {
            facts.put("error", Flink.causes(t));
            Flink.writeJson(factsFile, facts);
            t.printStackTrace();
            Runtime.getRuntime().halt(3);
        }
        Runtime.getRuntime().halt(0);
    }

    /**
     * The clean entry FileSystemJobResultStore writes for a job under {@code job-result-store.storage-path}
     * ({@code <job>.json}; {@code <job>_DIRTY.json} before the job's cleanup finished); the spec's
     * {@code jobResultStoreDir} is that path as a local directory.
     */
    static Path jobResultEntry(JsonNode spec, JobID id) {
        if (!spec.hasNonNull("jobResultStoreDir")) {
            throw new IllegalStateException("awaitJobResult needs a JobResultStore (jobResultStoreDir)");
        }
        return Paths.get(spec.get("jobResultStoreDir").asText()).resolve(id.toHexString() + ".json");
    }
}
