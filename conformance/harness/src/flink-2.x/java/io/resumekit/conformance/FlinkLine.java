package io.resumekit.conformance;

import org.apache.flink.core.execution.RecoveryClaimMode;
import org.apache.flink.api.dag.Pipeline;
import org.apache.flink.client.deployment.executors.PipelineExecutorUtils;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.SavepointRestoreSettings;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.streaming.api.functions.sink.legacy.DiscardingSink;

/**
 * What differs between the Flink lines the harness runs on, for Flink 2.x (src/flink-2.x, chosen by
 * the Maven property flink.line; src/flink-1.20 has the same class for 1.20). Everything else
 * compiles against both.
 */
final class FlinkLine {
    private FlinkLine() {}

    /** The line, as {@code conformance/run --flink} and a scenario's {@code "flink"} name it. */
    static final String LINE = "2.x";

    /** A restore from path in claim mode (CLAIM, NO_CLAIM, LEGACY): 2.x's RecoveryClaimMode (FLINK-34510). */
    static SavepointRestoreSettings restore(String path, boolean allowNonRestoredState, String claimMode) {
        return SavepointRestoreSettings.forPath(path, allowNonRestoredState, RecoveryClaimMode.valueOf(claimMode));
    }

    /** The JobGraph a pipeline executor is handed (what the CLI would submit). */
    static JobGraph jobGraph(Pipeline p, Configuration c, ClassLoader cl) throws Exception {
        return PipelineExecutorUtils.getStreamGraph(p, c).getJobGraph(cl);
    }

    /** A legacy SinkFunction sink (one operator that takes a uid hash), which both lines still build. */
    static <T> DataStreamSink<T> legacyDiscardingSink(DataStream<T> s) {
        return s.addSink(new DiscardingSink<>());
    }

    /** The Flink version on the classpath (e.g. 1.20.3, 2.2.0), as Flink reports it. */
    static String version() {
        return org.apache.flink.runtime.util.EnvironmentInformation.getVersion();
    }

    /** Adds the operator's name and uid as the snapshot records them: Flink 2.x records both in _metadata v5 and later, when the operator has them. */
    static void nameAndUid(org.apache.flink.runtime.checkpoint.OperatorState op,
                           org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode o) {
        op.getOperatorName().ifPresent(n -> o.put("name", n));
        op.getOperatorUid().ifPresent(u -> o.put("uid", u));
    }

    /**
     * The file of a merged channel-state handle (all of one subtask's input channels or result
     * subpartitions in one handle), or null when h is not one. Flink 2.x writes them in _metadata v6 (handle types 3 and 4).
     */
    static org.apache.flink.runtime.state.StreamStateHandle mergedChannelDelegate(Object h) {
        return h instanceof org.apache.flink.runtime.state.AbstractMergedChannelStateHandle
                ? ((org.apache.flink.runtime.state.AbstractMergedChannelStateHandle<?, ?>) h).getDelegate() : null;
    }

    /**
     * The count on the async state API (a keyed stream with enableAsyncState and a v2 ValueState):
     * on ForSt its keyed state meta info records the state as KEY_VALUE_V2, which only ForSt's
     * async keyed backend writes.
     */
    static org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator<String> asyncCount(
            org.apache.flink.streaming.api.datastream.KeyedStream<Long, Integer> k) {
        return k.enableAsyncState().process(new AsyncCount());
    }

    /** Counts per key in a v2 ValueState, read and written asynchronously; emits {@code id,key,count}. */
    static final class AsyncCount extends org.apache.flink.streaming.api.functions.KeyedProcessFunction<Integer, Long, String> {
        private static final long serialVersionUID = 1L;
        private transient org.apache.flink.api.common.state.v2.ValueState<Long> count;

        @Override
        public void open(org.apache.flink.api.common.functions.OpenContext ctx) {
            count = getRuntimeContext().getState(new org.apache.flink.api.common.state.v2.ValueStateDescriptor<>(
                    "count", org.apache.flink.api.common.typeinfo.Types.LONG));
        }

        @Override
        public void processElement(Long id, Context ctx, org.apache.flink.util.Collector<String> out) {
            Integer key = ctx.getCurrentKey();
            count.asyncValue().thenAccept(c -> {
                long n = c == null ? 1 : c + 1;
                count.asyncUpdate(n);
                out.collect(id + "," + key + "," + n);
            });
        }
    }
}
