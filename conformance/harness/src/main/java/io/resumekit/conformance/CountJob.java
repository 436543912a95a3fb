package io.resumekit.conformance;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * The standard count job: a deterministic source of record ids 0..records-1 (DataGeneratorSource, uid
 * {@code src}, its split positions in the checkpoint) → {@code parse} (stateless map, optional) →
 * keyBy(id % keys) → {@code count} (ValueState per key) → {@code block} (stateless; the crash point;
 * tags each record with its checkpoint epoch) → JournalSink (uid {@code sink}). Output lines are
 * {@code id,key,count,epoch}: epoch e means the record was processed after checkpoint e−1 of this
 * lineage was taken at {@code block}, so a restore of checkpoint c re-emits exactly the records of
 * epochs > c.
 */
public final class CountJob {
    private CountJob() {}

    /** Builds the job graph; {@code job} holds the job's shape, {@code variant} the new job's changes. */
    public static JobGraph build(Configuration conf, JsonNode job, JsonNode variant, String journalDir, String tag) {
        if (SqlPlanJob.is(job)) {
            return SqlPlanJob.build(conf, job, variant, journalDir, tag);
        }
        StreamExecutionEnvironment env = new StreamExecutionEnvironment(conf);
        int parallelism = intOf(variant, "parallelism", intOf(job, "parallelism", 2));
        env.setParallelism(parallelism);
        if (variant.has("maxParallelism")) {
            env.setMaxParallelism(variant.get("maxParallelism").asInt());
        }
        long records = job.path("records").asLong(3000);
        double rate = variant.has("rate") ? variant.get("rate").asDouble() : job.path("rate").asDouble(300);
        DataStream<Long> s;
        if (job.path("source").asText("datagen").equals("paimon")) {
            return PaimonStream.sqlJob(conf, job, variant, PaimonStream.map(job.path("hints")), journalDir, tag);
        }
        if (job.path("source").asText("datagen").equals("kafka-legacy")) {
            // FlinkKafkaConsumer, on Flink 1.20 only (LegacyKafka; the upgrade scenario U4)
            return finish(env, LegacyKafka.source(env, job, variant), job, variant, journalDir, tag);
        }
        if (job.path("source").asText("datagen").equals("kafka")) {
            // KafkaSource: committed offsets of the group (earliest without), committed on checkpoints
            KafkaSource<String> ks = KafkaSource.<String>builder()
                    .setBootstrapServers(job.get("bootstrap").asText())
                    .setTopics(job.get("topic").asText())
                    .setGroupId(job.get("group").asText())
                    .setStartingOffsets(OffsetsInitializer.committedOffsets(OffsetResetStrategy.EARLIEST))
                    .setValueOnlyDeserializer(new SimpleStringSchema())
                    .setProperty("commit.offsets.on.checkpoint", "true")
                    .setProperty("client.id.prefix", "rk-" + tag)
                    .build();
            s = env.fromSource(ks, WatermarkStrategy.noWatermarks(), "src")
                    .uid(str(variant, "srcUid", "src")).name("src")
                    .map(new ParseLong()).uid("parse-long").name("parse-long");
        } else {
            DataGeneratorSource<Long> source = new DataGeneratorSource<>(
                    i -> i, records,
                    rate > 0 ? RateLimiterStrategy.perSecond(rate) : RateLimiterStrategy.noOp(),
                    Types.LONG);
            s = env.fromSource(source, WatermarkStrategy.noWatermarks(), "src")
                    .uid(str(variant, "srcUid", "src")).name("src");
        }
        return finish(env, s, job, variant, journalDir, tag);
    }

    /** The pipeline after the source: parse, count (unless stateless), block, journal sink. */
    public static JobGraph finish(StreamExecutionEnvironment env, DataStream<Long> s, JsonNode job, JsonNode variant,
                                  String journalDir, String tag) {
        final int keys = job.path("keys").asInt(8);
        if (!variant.path("removeParse").asBoolean(false)) {
            s = s.map(new Parse()).uid(str(variant, "parseUid", "parse")).name("parse");
        }
        SingleOutputStreamOperator<String> counted;
        if (job.path("stateless").asBoolean(false)) {
            counted = s.map(new NoCount(keys)).uid("nocount").name("nocount");
        } else if ("async".equals(job.path("state").asText())) {
            // the count on the async state API (Flink 2.x: ForSt's async keyed backend)
            counted = FlinkLine.asyncCount(s.keyBy(new KeyOf(keys))).name("count");
        } else {
            // the count in ValueState<Long>, or a POJO, a Kryo-serialized type, List and Map state (job "state")
            counted = s.keyBy(new KeyOf(keys)).process(UpgradeState.count(job.path("state").asText("value"))).name("count");
        }
        if (job.path("stateless").asBoolean(false)) {
            // no keyed state: nothing to name
        } else if (variant.has("countUidHash")) {
            counted.setUidHash(variant.get("countUidHash").asText());
        } else {
            counted.uid(str(variant, "countUid", "count"));
        }
        if (variant.has("countMaxParallelism")) {
            counted.setMaxParallelism(variant.get("countMaxParallelism").asInt());
        } else if (job.has("countMaxParallelism")) {
            counted.setMaxParallelism(job.get("countMaxParallelism").asInt());
        }
        SingleOutputStreamOperator<String> blocked = counted.map(new Block(variant.path("slowMillis").asLong(0))).uid(str(variant, "blockUid", "block")).name("block");
        if (variant.has("blockParallelism")) {
            blocked.setParallelism(variant.get("blockParallelism").asInt());
        }
        blocked.sinkTo(new JournalSink(journalDir, tag)).uid(str(variant, "sinkUid", "sink")).name("sink");
        return env.getStreamGraph().getJobGraph();
    }

    static int intOf(JsonNode n, String k, int d) {
        return n != null && n.has(k) ? n.get(k).asInt() : d;
    }

    static String str(JsonNode n, String k, String d) {
        return n != null && n.has(k) ? n.get(k).asText() : d;
    }

    /** keyBy id % keys. */
    public static final class KeyOf implements org.apache.flink.api.java.functions.KeySelector<Long, Integer> {
        private static final long serialVersionUID = 1L;
        private final int keys;

        KeyOf(int keys) {
            this.keys = keys;
        }

        @Override
        public Integer getKey(Long v) {
            return (int) (v % keys);
        }
    }

    /** Kafka record value (the input's sequence id) to Long. */
    public static final class ParseLong implements org.apache.flink.api.common.functions.MapFunction<String, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long map(String v) {
            return Long.parseLong(v.trim());
        }
    }

    /** The stateless job's stand-in for count: {@code id,key,0}. */
    public static final class NoCount implements org.apache.flink.api.common.functions.MapFunction<Long, String> {
        private static final long serialVersionUID = 1L;
        private final int keys;

        NoCount(int keys) {
            this.keys = keys;
        }

        @Override
        public String map(Long id) {
            return id + "," + (id % keys) + ",0";
        }
    }

    /** A stateless map. */
    public static final class Parse extends RichMapFunction<Long, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long map(Long v) {
            return v;
        }
    }

    /** Counts per key; emits {@code id,key,count}. */
    public static final class Count extends KeyedProcessFunction<Integer, Long, String> {
        private static final long serialVersionUID = 1L;
        private transient ValueState<Long> count;

        @Override
        public void open(OpenContext ctx) {
            count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
        }

        @Override
        public void processElement(Long id, Context ctx, Collector<String> out) throws Exception {
            Long c = count.value();
            long n = c == null ? 1 : c + 1;
            count.update(n);
            out.collect(id + "," + ctx.getCurrentKey() + "," + n);
        }
    }

    /** Stateless pass-through that tags the epoch and is the mid-checkpoint crash point. */
    public static final class Block extends RichMapFunction<String, String>
            implements CheckpointedFunction, org.apache.flink.api.common.state.CheckpointListener {
        private static final long serialVersionUID = 1L;
        private final long slowMillis;
        private transient long epoch;
        private transient long lastSnapshotted;
        private transient long lastResolved;

        Block(long slowMillis) {
            this.slowMillis = slowMillis;
        }

        @Override
        public String map(String v) throws InterruptedException {
            if (slowMillis > 0) {
                Thread.sleep(slowMillis); // backpressure, so unaligned checkpoints hold in-flight data
            }
            return v + "," + epoch;
        }

        @Override
        public void snapshotState(FunctionSnapshotContext ctx) {
            CrashPoint.maybeBlock(ctx.getCheckpointId(), getRuntimeContext().getTaskInfo().getIndexOfThisSubtask(),
                    lastSnapshotted, lastResolved);
            lastSnapshotted = ctx.getCheckpointId();
            epoch = ctx.getCheckpointId() + 1;
        }

        @Override
        public void initializeState(FunctionInitializationContext ctx) {
            epoch = ctx.getRestoredCheckpointId().orElse(0L) + 1;
            lastSnapshotted = ctx.getRestoredCheckpointId().orElse(0L);
            lastResolved = lastSnapshotted;
        }

        @Override
        public void notifyCheckpointComplete(long id) {
            resolve(id);
        }

        @Override
        public void notifyCheckpointAborted(long id) {
            resolve(id);
        }

        private void resolve(long id) {
            if (id > lastResolved) {
                lastResolved = id;
                CrashPoint.resolved(id, getRuntimeContext().getTaskInfo().getIndexOfThisSubtask());
            }
        }
    }
}
