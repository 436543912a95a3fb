package io.resumekit.conformance;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.checkpoint.CompletedCheckpointStats;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.minicluster.MiniCluster;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * The KafkaSink scenarios' "JobManager" in a child JVM: one MiniCluster runs every job of the spec
 * at once ({@link KafkaSinkJob}, each with its own checkpoint dir), waits for checkpoints, then ends
 * each job its way — {@code "stall"}: the stall crash point armed a few checkpoints ahead, waited
 * for until every sink subtask is stuck after that checkpoint's pre-commit and Flink has completed
 * it (and, with {@code sourceAhead}, until the group's committed offsets on the broker are exactly
 * the checkpoint's source position: the source was notified, the sink was not); {@code "stop"}: a
 * stop-with-savepoint. It writes {@code facts.json} and touches {@code ready-to-kill}; the parent
 * SIGKILLs it.
 *
 * <p>Usage: {@code KafkaSinkNode SPEC.json} (written by {@link KafkaSinkKind}).
 */
public final class KafkaSinkNode {
    private KafkaSinkNode() {}

    public static void main(String[] args) throws Exception {
        JsonNode spec = Flink.JSON.readTree(Paths.get(args[0]).toFile());
        Path control = Paths.get(spec.get("control").asText());
        Path factsFile = control.resolve("facts.json");
        ObjectNode facts = Flink.JSON.createObjectNode();
        try {
            // never closed: a stalled task does not end on cancel, so an orderly close would hang;
            // the parent SIGKILLs this JVM (or it halts below)
            MiniCluster mc = Flink.start(Flink.configuration(spec.get("settings")));
            List<JobID> ids = new ArrayList<>();
            for (JsonNode j : spec.get("jobs")) {
                ObjectNode s = ((ObjectNode) spec.get("settings")).deepCopy();
                s.put("execution.checkpointing.dir", j.get("checkpoints").asText());
                Configuration conf = Flink.configuration(s);
                Path jc = control.resolve(j.get("name").asText());
                Files.createDirectories(jc);
                JobGraph jg = KafkaSinkJob.build(conf, j.get("job"), j.path("variant"), jc.toString(), null);
                JobID id = JobID.fromHexString(j.get("jobId").asText());
                jg.setJobID(id);
                mc.submitJob(jg).get(60, TimeUnit.SECONDS);
                ids.add(id);
            }
            for (JobID id : ids) {
                Flink.waitRunning(mc, id, Duration.ofSeconds(90));
            }
            int k = 0;
            for (JsonNode j : spec.get("jobs")) {
                JobID id = ids.get(k++);
                int n = j.path("waitCheckpoints").asInt(2);
                Flink.await(n + " completed checkpoints of " + j.get("name").asText(), Duration.ofSeconds(90),
                        () -> Flink.completed(mc, id).size() >= n);
                // every input partition read before a completed checkpoint (its commit above 0), so
                // the checkpoint armed below has a source position for each
                JsonNode job = j.get("job");
                int parts = job.path("keys").asInt(3);
                Flink.await("group " + job.get("group").asText() + " committed offsets above 0 on all " + parts + " partitions",
                        Duration.ofSeconds(90), () -> {
                            try {
                                TreeMap<Integer, Long> c = KafkaSinkFacts.committed(job.get("bootstrap").asText(),
                                        job.get("group").asText(), job.get("topic").asText());
                                return c.size() == parts && c.values().stream().allMatch(o -> o > 0);
                            } catch (Exception e) {
                                return false;
                            }
                        });
            }
            k = 0;
            for (JsonNode j : spec.get("jobs")) {
                JobID id = ids.get(k++);
                ObjectNode f = facts.putObject(j.get("name").asText());
                f.put("jobId", id.toHexString());
                if (j.get("end").asText().equals("stop")) {
                    String p = mc.stopWithSavepoint(id, j.get("savepoints").asText(), false, SavepointFormatType.CANONICAL)
                            .get(90, TimeUnit.SECONDS);
                    f.put("savepoint", p);
                    // the stop committed the savepoint's transactions before the job ended
                    f.set("transactions_after_stop", KafkaSinkFacts.transactions(j.get("job").get("bootstrap").asText(),
                            j.get("job").get("prefix").asText()));
                    continue;
                }
                // a few checkpoints ahead of any a subtask may have snapshotted already (one at a time)
                List<CompletedCheckpointStats> cs = Flink.completed(mc, id);
                long at = cs.get(cs.size() - 1).getCheckpointId() + 3;
                Files.writeString(control.resolve(j.get("name").asText()).resolve("arm-stall"), Long.toString(at));
                f.put("armed_at", at);
            }
            k = 0;
            for (JsonNode j : spec.get("jobs")) {
                JobID id = ids.get(k++);
                if (j.get("end").asText().equals("stop")) {
                    continue;
                }
                ObjectNode f = (ObjectNode) facts.get(j.get("name").asText());
                Path jc = control.resolve(j.get("name").asText());
                int par = j.get("job").path("parallelism").asInt(2);
                ObjectNode[] stalled = new ObjectNode[1];
                Flink.await("every sink subtask of " + j.get("name").asText() + " stalled after a checkpoint's pre-commit",
                        Duration.ofSeconds(90), () -> {
                            try {
                                stalled[0] = KafkaSinkJob.stalledAt(jc, par);
                            } catch (java.io.IOException e) {
                                throw new RuntimeException(e);
                            }
                            return stalled[0] != null;
                        });
                long ck = stalled[0].get("checkpoint").asLong();
                Flink.await("checkpoint " + ck + " of " + j.get("name").asText() + " completed", Duration.ofSeconds(90),
                        () -> Flink.completed(mc, id).stream().anyMatch(c -> c.getCheckpointId() == ck));
                f.set("stalled", stalled[0]);
                for (CompletedCheckpointStats c : Flink.completed(mc, id)) {
                    if (c.getCheckpointId() == ck) {
                        f.put("checkpoint", c.getExternalPath());
                    }
                }
                JsonNode job = j.get("job");
                int parts = job.path("keys").asInt(3);
                TreeMap<Integer, Long> want = new TreeMap<>();
                for (int p = 0; p < parts; p++) {
                    JsonNode o = stalled[0].get("next").get(Integer.toString(p));
                    if (o == null) {
                        throw new IllegalStateException("input partition " + p + " had no record before checkpoint " + ck
                                + ": no source position to compare; give the job more input or a slower stall");
                    }
                    want.put(p, o.asLong());
                }
                if (j.path("sourceAhead").asBoolean(false)) {
                    // the source task was notified of checkpoint ck and committed its offsets: the
                    // group's commits are exactly where the checkpoint's source state continues
                    TreeMap<Integer, Long>[] got = new TreeMap[1];
                    Flink.await("group " + job.get("group").asText() + " committed at checkpoint " + ck + "'s source position " + want,
                            Duration.ofSeconds(60), () -> {
                                try {
                                    got[0] = KafkaSinkFacts.committed(job.get("bootstrap").asText(), job.get("group").asText(), job.get("topic").asText());
                                } catch (Exception e) {
                                    return false;
                                }
                                return got[0].equals(want);
                            });
                    f.set("group_offsets_at_kill", Flink.JSON.valueToTree(got[0]));
                }
                f.set("transactions_at_kill", KafkaSinkFacts.transactions(job.get("bootstrap").asText(), job.get("prefix").asText()));
                f.set("completed", Flink.checkpointsJson(Flink.completed(mc, id)));
            }
            Flink.writeJson(factsFile, facts);
            Files.writeString(control.resolve("ready-to-kill"), "1");
            while (true) {
                Thread.sleep(60_000);
            }
        } catch (Throwable t) {
            facts.put("error", Flink.causes(t));
            Flink.writeJson(factsFile, facts);
            t.printStackTrace();
            Runtime.getRuntime().halt(3);
        }
    }
}
