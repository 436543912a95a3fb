package io.resumekit.conformance;

import org.apache.flink.core.execution.RestoreMode;
import org.apache.flink.api.dag.Pipeline;
import org.apache.flink.client.deployment.executors.PipelineExecutorUtils;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.SavepointRestoreSettings;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.streaming.api.functions.sink.DiscardingSink;

/**
 * What differs between the Flink lines the harness runs on, for Flink 1.20 (src/flink-1.20, chosen by
 * the Maven property flink.line; src/flink-2.x has the same class for 2.x). Everything else compiles
 * against both.
 */
final class FlinkLine {
    private FlinkLine() {}

    /** The line, as {@code conformance/run --flink} and a scenario's {@code "flink"} name it. */
    static final String LINE = "1.20";

    /** A restore from path in claim mode (CLAIM, NO_CLAIM, LEGACY): 1.20's RestoreMode. */
    static SavepointRestoreSettings restore(String path, boolean allowNonRestoredState, String claimMode) {
        return SavepointRestoreSettings.forPath(path, allowNonRestoredState, RestoreMode.valueOf(claimMode));
    }

    /** The JobGraph a pipeline executor is handed (what the CLI would submit). */
    static JobGraph jobGraph(Pipeline p, Configuration c, ClassLoader cl) throws Exception {
        return PipelineExecutorUtils.getJobGraph(p, c, cl);
    }

    /** A legacy SinkFunction sink (one operator that takes a uid hash), which both lines still build. */
    static <T> DataStreamSink<T> legacyDiscardingSink(DataStream<T> s) {
        return s.addSink(new DiscardingSink<>());
    }

    /** The Flink version on the classpath (e.g. 1.20.3, 2.2.0), as Flink reports it. */
    static String version() {
        return org.apache.flink.runtime.util.EnvironmentInformation.getVersion();
    }

    /** Adds the operator's name and uid as the snapshot records them: Flink 1.20 records neither (its _metadata v4 has no field for them). */
    static void nameAndUid(org.apache.flink.runtime.checkpoint.OperatorState op,
                           org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode o) {
    }

    /**
     * The file of a merged channel-state handle (all of one subtask's input channels or result
     * subpartitions in one handle), or null when h is not one. Flink 1.20 has no merged handles: null.
     */
    static org.apache.flink.runtime.state.StreamStateHandle mergedChannelDelegate(Object h) {
        return null;
    }

    /** The count on the async state API: Flink 2.x only (scenarios using it name only the 2.x line). */
    static org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator<String> asyncCount(
            org.apache.flink.streaming.api.datastream.KeyedStream<Long, Integer> k) {
        throw new UnsupportedOperationException("the async state API (job state \"async\") needs Flink 2.x");
    }
}
