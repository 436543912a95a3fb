package io.resumekit.conformance;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.checkpoint.AbstractCheckpointStats;
import org.apache.flink.runtime.checkpoint.CheckpointStatsSnapshot;
import org.apache.flink.runtime.checkpoint.CheckpointStatsStatus;
import org.apache.flink.runtime.checkpoint.CompletedCheckpointStats;
import org.apache.flink.runtime.checkpoint.RestoredCheckpointStats;
import org.apache.flink.runtime.executiongraph.AccessExecutionGraph;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Shared Flink helpers: cluster configuration, checkpoint stats, waits with deadlines. */
public final class Flink {
    private Flink() {}

    public static final ObjectMapper JSON = new ObjectMapper();

    /** The configuration of a scenario: harness defaults, then the scenario's settings. */
    public static Configuration configuration(JsonNode settings) {
        Configuration c = new Configuration();
        c.setString("rest.bind-address", "127.0.0.1");
        c.setString("rest.address", "127.0.0.1");
        c.setString("rest.bind-port", "0");
        c.setString("jobmanager.bind-host", "127.0.0.1");
        c.setString("jobmanager.rpc.address", "127.0.0.1");
        c.setString("taskmanager.bind-host", "127.0.0.1");
        c.setString("taskmanager.host", "127.0.0.1");
        c.setString("taskmanager.memory.managed.size", "96m");
        c.setString("taskmanager.memory.network.min", "48m");
        c.setString("taskmanager.memory.network.max", "48m");
        c.setString("taskmanager.numberOfTaskSlots", "8");
        c.setString("web.checkpoints.history", "1000");
        c.setString("restart-strategy.type", "none");
        c.setString("execution.checkpointing.interval", "300 ms");
        c.setString("execution.checkpointing.externalized-checkpoint-retention", "RETAIN_ON_CANCELLATION");
        c.setString("execution.checkpointing.data-inline-threshold", "0");
        c.setString("execution.checkpointing.min-pause", "100 ms");
        c.setString("pipeline.generic-types", "true");
        c.setString("state.backend.rocksdb.localdir", System.getProperty("java.io.tmpdir") + "/rk-rocksdb");
        if (settings != null) {
            Iterator<Map.Entry<String, JsonNode>> it = settings.fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                c.setString(e.getKey(), e.getValue().asText());
            }
        }
        return c;
    }

    public static MiniCluster start(Configuration conf) throws Exception {
        return start(conf, 1);
    }

    /** A MiniCluster with {@code taskManagers} TaskManagers (0: a JobManager only). */
    public static MiniCluster start(Configuration conf, int taskManagers) throws Exception {
        MiniCluster mc = new MiniCluster(new MiniClusterConfiguration.Builder()
                .setConfiguration(conf).setNumTaskManagers(taskManagers).setNumSlotsPerTaskManager(8).build());
        mc.start();
        return mc;
    }

    /** Waits until cond holds or the deadline passes (then throws naming what). */
    public static void await(String what, Duration timeout, BooleanSupplier cond) throws Exception {
        long end = System.nanoTime() + timeout.toNanos();
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new IllegalStateException("timed out after " + timeout + " waiting for " + what);
            }
            Thread.sleep(50);
        }
    }

    public static AccessExecutionGraph graph(MiniCluster mc, JobID id) {
        try {
            return mc.getExecutionGraph(id).get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new RuntimeException(e);
        }
    }

    public static JobStatus status(MiniCluster mc, JobID id) {
        try {
            return mc.getJobStatus(id).get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new RuntimeException(e);
        }
    }

    /** Completed checkpoints and savepoints of a job, in id order. */
    public static List<CompletedCheckpointStats> completed(MiniCluster mc, JobID id) {
        CheckpointStatsSnapshot s = graph(mc, id).getCheckpointStatsSnapshot();
        List<CompletedCheckpointStats> out = new ArrayList<>();
        if (s == null) {
            return out;
        }
        for (AbstractCheckpointStats a : s.getHistory().getCheckpoints()) {
            if (a.getStatus() == CheckpointStatsStatus.COMPLETED) {
                out.add((CompletedCheckpointStats) a);
            }
        }
        out.sort((x, y) -> Long.compare(x.getCheckpointId(), y.getCheckpointId()));
        return out;
    }

    public static RestoredCheckpointStats restored(MiniCluster mc, JobID id) {
        CheckpointStatsSnapshot s = graph(mc, id).getCheckpointStatsSnapshot();
        return s == null ? null : s.getLatestRestoredCheckpoint();
    }

    public static void waitRunning(MiniCluster mc, JobID id, Duration t) throws Exception {
        await("job " + id + " running", t, () -> {
            JobStatus st = status(mc, id);
            if (st.isGloballyTerminalState()) {
                throw new IllegalStateException("job " + id + " ended " + st + " before running");
            }
            return graph(mc, id).getAllExecutionVertices().iterator().hasNext()
                    && java.util.stream.StreamSupport.stream(graph(mc, id).getAllExecutionVertices().spliterator(), false)
                    .allMatch(v -> v.getExecutionState() == org.apache.flink.runtime.execution.ExecutionState.RUNNING
                            || v.getExecutionState() == org.apache.flink.runtime.execution.ExecutionState.FINISHED);
        });
    }

    public static ArrayNode checkpointsJson(List<CompletedCheckpointStats> cs) {
        ArrayNode a = JSON.createArrayNode();
        for (CompletedCheckpointStats c : cs) {
            ObjectNode o = a.addObject();
            o.put("id", c.getCheckpointId());
            o.put("path", c.getExternalPath());
            o.put("savepoint", c.getProperties().isSavepoint());
            o.put("type", c.getProperties().getCheckpointType().getName());
        }
        return a;
    }

    public static void writeJson(Path p, JsonNode n) throws IOException {
        Path tmp = p.resolveSibling(p.getFileName() + ".tmp");
        Files.writeString(tmp, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(n));
        Files.move(tmp, p, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /** The root-cause chain of a failure as one line per cause. */
    public static String causes(Throwable t) {
        StringBuilder b = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (b.length() > 0) {
                b.append(" <- ");
            }
            b.append(c.getClass().getSimpleName()).append(": ").append(c.getMessage());
            if (c.getCause() == c) {
                break;
            }
        }
        return b.toString();
    }
}
