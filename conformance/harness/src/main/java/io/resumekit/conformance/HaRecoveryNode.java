package io.resumekit.conformance;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.checkpoint.RestoredCheckpointStats;
import org.apache.flink.runtime.execution.ExecutionState;
import org.apache.flink.runtime.executiongraph.AccessExecutionVertex;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.runtime.minicluster.MiniCluster;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.stream.StreamSupport;

/**
 * Flink's own "what would I restore" oracle, in a second child JVM after the first one was
 * SIGKILLed: a MiniCluster with the same {@code high-availability.*} settings and cluster id. Its
 * dispatcher recovers the killed job from the ZooKeeper JobGraphStore, and the new JobMaster
 * restores the latest checkpoint of the ZooKeeper completed-checkpoint store when it builds the
 * execution graph. This node records that checkpoint
 * ({@code getCheckpointStatsSnapshot().getLatestRestoredCheckpoint()}) and cancels the job.
 *
 * <p>By default the cluster has no TaskManager: the restore is the JobMaster's choice, the tasks
 * never run, so the recovered job writes no checkpoint into the scenario's dirs. With
 * {@code runTasks} one TaskManager runs the tasks until they are all RUNNING or the job fails (a
 * task restore of a broken checkpoint), and that outcome is recorded too.
 *
 * <p>Usage: {@code HaRecoveryNode SPEC.json}; writes {@code facts.json} and touches {@code done}.
 */
public final class HaRecoveryNode {
    private HaRecoveryNode() {}

    public static void main(String[] args) throws Exception {
        JsonNode spec = Flink.JSON.readTree(Paths.get(args[0]).toFile());
        Path control = Paths.get(spec.get("control").asText());
        Files.createDirectories(control);
        Path factsFile = control.resolve("facts.json");
        ObjectNode facts = Flink.JSON.createObjectNode();
        JobID id = JobID.fromHexString(spec.get("jobId").asText());
        boolean runTasks = spec.path("runTasks").asBoolean(false);
        facts.put("jobId", id.toHexString());
        facts.put("runTasks", runTasks);
        long t0 = System.nanoTime();
        Configuration conf = Flink.configuration(spec.get("settings"));
        try (MiniCluster mc = Flink.start(conf, runTasks ? 1 : 0)) {
            Flink.await("the dispatcher to recover job " + id + " from the JobGraphStore", Duration.ofSeconds(90), () -> {
                try {
                    mc.getJobStatus(id).get(5, TimeUnit.SECONDS);
                    return true;
                } catch (Exception e) {
                    return false; // not leader yet, or the job not recovered yet
                }
            });
            facts.put("recovered", true);
            facts.put("recoveredAfterSeconds", Math.round((System.nanoTime() - t0) / 1e8) / 10.0);
            long end = System.nanoTime() + Duration.ofSeconds(90).toNanos();
            JobStatus st;
            while (true) {
                st = Flink.status(mc, id);
                if (st.isGloballyTerminalState()) {
                    break;
                }
                RestoredCheckpointStats r = Flink.restored(mc, id);
                if (r != null) {
                    facts.put("restoredId", r.getCheckpointId());
                    facts.put("restoredPath", r.getExternalPath());
                    if (!runTasks || allRunning(mc, id)) {
                        break;
                    }
                } else if (!runTasks && st == JobStatus.RUNNING) {
                    break; // scheduled, waiting for slots that never come: restored nothing
                }
                if (System.nanoTime() > end) {
                    throw new IllegalStateException("timed out after 90 s waiting for the recovered job " + id
                            + " to restore (status " + st + ")");
                }
                Thread.sleep(50);
            }
            facts.put("status", st.name());
            if (st.isGloballyTerminalState()) {
                JobResult jr = mc.requestJobResult(id).get(30, TimeUnit.SECONDS);
                jr.getSerializedThrowable().ifPresent(x -> facts.put("error",
                        Flink.causes(x.deserializeError(HaRecoveryNode.class.getClassLoader()))));
                RestoredCheckpointStats r = Flink.restored(mc, id);
                if (r != null) {
                    facts.put("restoredId", r.getCheckpointId());
                    facts.put("restoredPath", r.getExternalPath());
                }
            } else {
                facts.put("tasksRunning", runTasks);
                mc.cancelJob(id).get(30, TimeUnit.SECONDS);
                JobResult jr = mc.requestJobResult(id).get(60, TimeUnit.SECONDS);
                // the cancel's outcome (informational; JobResult.getApplicationStatus is gone in Flink 2.3)
                facts.put("cancelled", jr.isSuccess() ? "SUCCEEDED" : "CANCELED");
            }
            facts.put("seconds", Math.round((System.nanoTime() - t0) / 1e8) / 10.0);
            Flink.writeJson(factsFile, facts);
            Files.writeString(control.resolve("done"), "ha recovery recorded");
        } catch (Throwable t) {
            facts.put("harnessError", Flink.causes(t));
            Flink.writeJson(factsFile, facts);
            t.printStackTrace();
            Runtime.getRuntime().halt(3);
        }
        Runtime.getRuntime().halt(0);
    }

    static boolean allRunning(MiniCluster mc, JobID id) {
        Iterable<? extends AccessExecutionVertex> vs = Flink.graph(mc, id).getAllExecutionVertices();
        return vs.iterator().hasNext() && StreamSupport.stream(vs.spliterator(), false)
                .allMatch(v -> v.getExecutionState() == ExecutionState.RUNNING);
    }
}
