package io.resumekit.conformance;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.ChainingStrategy;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.tasks.mailbox.TaskMailbox;
import org.apache.flink.streaming.connectors.kafka.partitioner.FlinkFixedPartitioner;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.TreeMap;

/**
 * The KafkaSink scenarios' job: a KafkaSource (uid {@code src}, group offsets, committed on
 * checkpoints, bounded at the topic's end when the job starts) → {@code parse-long} → keyBy(id %
 * keys) → {@code count} (ValueState per key) → {@code stall} → a real KafkaSink, {@code
 * EXACTLY_ONCE}, with a transactional id prefix and the producer's {@code transaction.timeout.ms}
 * (uid {@code sink}; {@code FlinkFixedPartitioner}: sink subtask s writes partition s of the output
 * topic). Output values are {@code id,key,count,epoch,subtask}: epoch e is the checkpoint whose
 * transaction holds the record ({@code stall} is chained to the sink writer, so the records it
 * passes between checkpoint e−1's barrier and e's are the writer's transaction prepared at e).
 *
 * <p>{@code stall} is the crash point "after checkpoint N's pre-commit, before its commit": armed
 * with {@code <control>/arm-stall} holding N, each subtask, at its first snapshot of a checkpoint ≥ N
 * (its writer's transaction for it prepared, the committer's state holding it), writes {@code
 * stalled-<subtask>} (the checkpoint id, and per input partition the next offset, from the records it
 * passed: Flink's own view of the checkpoint's source position) and blocks its task's mailbox
 * (then {@code stalling-<subtask>}). The task never runs the notifyCheckpointComplete of that
 * checkpoint, so the chained committer never commits it, while the source's tasks (not chained:
 * keyBy) are notified and commit the group's offsets: the source-ahead race, on purpose. {@code
 * slowMillis} paces the source (a sleep in {@code parse-long}, chained to it), so nothing
 * downstream is backpressured and each checkpoint completes in a few hundred milliseconds.
 */
final class KafkaSinkJob {
    private KafkaSinkJob() {}

    /**
     * The job from its spec ({@code bootstrap}, {@code topic}, {@code group}, {@code out}, {@code
     * prefix}, {@code timeoutMs}, {@code keys}, {@code parallelism}) and variant ({@code srcUid},
     * {@code slowMillis}); control is the stall's marker dir (null: never stalls); hints, when not
     * null, replace the KafkaSource by a Flink SQL source over the topic with these OPTIONS (a
     * decision's stateless launch, as K1 launches one).
     */
    static JobGraph build(Configuration conf, JsonNode job, JsonNode variant, String control, Map<String, String> hints) {
        StreamExecutionEnvironment env = new StreamExecutionEnvironment(conf);
        env.setParallelism(job.path("parallelism").asInt(2));
        int keys = job.path("keys").asInt(3);
        DataStream<Long> ids;
        if (hints == null) {
            KafkaSource<String> ks = KafkaSource.<String>builder()
                    .setBootstrapServers(job.get("bootstrap").asText())
                    .setTopics(job.get("topic").asText())
                    .setGroupId(job.get("group").asText())
                    .setStartingOffsets(OffsetsInitializer.committedOffsets(OffsetResetStrategy.EARLIEST))
                    .setBounded(OffsetsInitializer.latest())
                    .setValueOnlyDeserializer(new SimpleStringSchema())
                    .setProperty("commit.offsets.on.checkpoint", "true")
                    .build();
            ids = env.fromSource(ks, WatermarkStrategy.noWatermarks(), "src")
                    .uid(CountJob.str(variant, "srcUid", "src")).name("src")
                    .map(new SlowParse(variant.path("slowMillis").asLong(0))).uid("parse-long").name("parse-long");
        } else {
            ids = sqlSource(env, job, hints);
        }
        int par = job.path("parallelism").asInt(2);
        DataStream<String> counted = ids.keyBy(new SpreadKey(keys, par)).process(new CountJob.Count()).uid("count").name("count");
        DataStream<String> stalled = counted.transform("stall", Types.STRING, new Stall(control, keys)).uid("stall").name("stall");
        stalled.sinkTo(sink(job)).uid("sink").name("sink");
        JobGraph jg = env.getStreamGraph().getJobGraph();
        for (var v : jg.getVertices()) {
            if (v.getName().contains("stall") && !v.getName().contains("Committer")) {
                throw new IllegalStateException("stall is not chained to the sink's writer and committer: " + v.getName());
            }
        }
        return jg;
    }

    /** The real KafkaSink of the job spec: EXACTLY_ONCE, the prefix, the producer's transaction timeout. */
    static KafkaSink<String> sink(JsonNode job) {
        return KafkaSink.<String>builder()
                .setBootstrapServers(job.get("bootstrap").asText())
                .setRecordSerializer(KafkaRecordSerializationSchema.<String>builder()
                        .setTopic(job.get("out").asText())
                        .setValueSerializationSchema(new SimpleStringSchema())
                        .setPartitioner(new FlinkFixedPartitioner<>())
                        .build())
                .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
                .setTransactionalIdPrefix(job.get("prefix").asText())
                .setProperty("transaction.timeout.ms", Long.toString(job.get("timeoutMs").asLong()))
                .build();
    }

    /** A Flink SQL source over the input topic with the launch options as OPTIONS, bounded at its end. */
    static DataStream<Long> sqlSource(StreamExecutionEnvironment env, JsonNode job, Map<String, String> hints) {
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        tEnv.executeSql("CREATE TABLE src (v STRING) WITH ("
                + "'connector'='kafka', 'topic'='" + job.get("topic").asText() + "', "
                + "'properties.bootstrap.servers'='" + job.get("bootstrap").asText() + "', "
                + "'properties.group.id'='" + job.get("group").asText() + "', "
                + "'properties.auto.offset.reset'='earliest', "
                + "'scan.startup.mode'='group-offsets', 'scan.bounded.mode'='latest-offset', 'format'='raw')");
        StringBuilder h = new StringBuilder();
        for (Map.Entry<String, String> e : hints.entrySet()) {
            if (h.length() > 0) {
                h.append(", ");
            }
            h.append('\'').append(e.getKey().replace("'", "''")).append("'='").append(e.getValue().replace("'", "''")).append('\'');
        }
        Table t = tEnv.sqlQuery("SELECT v FROM src" + (h.length() > 0 ? " /*+ OPTIONS(" + h + ") */" : ""));
        DataStream<Row> rows = tEnv.toDataStream(t);
        return rows.map(r -> Long.parseLong(((String) r.getField(0)).trim())).returns(Long.class).uid("sql-parse").name("sql-parse");
    }

    /**
     * keyBy input partition (id % parts), each partition's key chosen so that partition p's records
     * are counted, stalled and written by subtask p % parallelism (Flink's key-group assignment of
     * the small integers 0..parts-1 may put them all on one subtask): every sink subtask has a
     * transaction of its own, on output partition p % parallelism.
     */
    static final class SpreadKey implements org.apache.flink.api.java.functions.KeySelector<Long, Integer> {
        private static final long serialVersionUID = 1L;
        private final int[] keyOf;

        SpreadKey(int parts, int parallelism) {
            keyOf = new int[parts];
            int maxParallelism = org.apache.flink.runtime.state.KeyGroupRangeAssignment.computeDefaultMaxParallelism(parallelism);
            for (int p = 0; p < parts; p++) {
                int k = p;
                while (org.apache.flink.runtime.state.KeyGroupRangeAssignment.assignKeyToParallelOperator(k, maxParallelism, parallelism)
                        != p % parallelism) {
                    k += parts;
                }
                keyOf[p] = k;
            }
        }

        @Override
        public Integer getKey(Long id) {
            return keyOf[(int) (id % keyOf.length)];
        }
    }

    /** Kafka record value (the input's id) to Long, sleeping slowMillis first: the source's pace. */
    static final class SlowParse implements MapFunction<String, Long> {
        private static final long serialVersionUID = 1L;
        private final long slowMillis;

        SlowParse(long slowMillis) {
            this.slowMillis = slowMillis;
        }

        @Override
        public Long map(String v) throws InterruptedException {
            if (slowMillis > 0) {
                Thread.sleep(slowMillis);
            }
            return Long.parseLong(v.trim());
        }
    }

    /**
     * Tags each record with its epoch and subtask; the crash point (see the class doc). An operator,
     * not a function: at the stalled checkpoint's snapshot it puts a mail that blocks forever into
     * its task's mailbox, ahead of the notifyCheckpointComplete mail that the JobManager sends once
     * the checkpoint is complete, whatever input there is.
     */
    static final class Stall extends AbstractStreamOperator<String> implements OneInputStreamOperator<String, String> {
        private static final long serialVersionUID = 1L;
        private final String control;
        private final int parts;
        private transient long epoch;
        private transient boolean stalled;
        private transient long[] next;

        Stall(String control, int parts) {
            // chained to count and the sink writer: Flink 1.20's operators start at HEAD (its public
            // setChainingStrategy); 2.x has neither and chains an operator's factory by default
            try {
                AbstractStreamOperator.class.getMethod("setChainingStrategy", ChainingStrategy.class).invoke(this, ChainingStrategy.ALWAYS);
            } catch (NoSuchMethodException e) {
                // Flink 2.x
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
            this.control = control;
            this.parts = parts;
        }

        private int subtask() {
            return getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        }

        @Override
        public void initializeState(StateInitializationContext ctx) throws Exception {
            super.initializeState(ctx);
            epoch = ctx.getRestoredCheckpointId().orElse(0L) + 1;
            next = new long[parts];
        }

        @Override
        public void processElement(StreamRecord<String> r) {
            String v = r.getValue();
            long id = Long.parseLong(v.substring(0, v.indexOf(',')));
            int p = (int) (id % parts);
            next[p] = Math.max(next[p], id / parts + 1);
            output.collect(r.replace(v + "," + epoch + "," + subtask()));
        }

        @Override
        public void snapshotState(StateSnapshotContext ctx) throws Exception {
            super.snapshotState(ctx);
            long id = ctx.getCheckpointId();
            if (control != null && !stalled) {
                Path arm = Paths.get(control, "arm-stall");
                if (Files.exists(arm) && id >= Long.parseLong(Files.readString(arm).trim())) {
                    stalled = true;
                    ObjectNode o = Flink.JSON.createObjectNode();
                    o.put("checkpoint", id);
                    ObjectNode n = o.putObject("next");
                    for (int p = 0; p < parts; p++) {
                        if (next[p] > 0) {
                            n.put(Integer.toString(p), next[p]);
                        }
                    }
                    write("stalled-" + subtask(), o.toString());
                    final int sub = subtask();
                    getContainingTask().getMailboxExecutorFactory().createExecutor(TaskMailbox.MIN_PRIORITY).execute(() -> {
                        write("stalling-" + sub, Long.toString(id));
                        while (true) {
                            try {
                                Thread.sleep(60_000);
                            } catch (InterruptedException e) {
                                // Flink interrupts on cancel; only the SIGKILL ends this run
                            }
                        }
                    }, "stall after checkpoint " + id);
                }
            }
            epoch = id + 1;
        }

        private void write(String name, String content) throws IOException {
            Path tmp = Paths.get(control, "." + name + ".tmp");
            Files.writeString(tmp, content);
            Files.move(tmp, Paths.get(control, name), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /**
     * Flink's own view of the stalled checkpoint's source position: per input partition the next
     * offset, from every stall subtask's {@code stalled-<s>} file (each partition is keyed to one
     * subtask). Null until all {@code subtasks} have stalled; an error when they stalled at
     * different checkpoints.
     */
    static ObjectNode stalledAt(Path control, int subtasks) throws IOException {
        long ck = -1;
        TreeMap<Integer, Long> next = new TreeMap<>();
        for (int s = 0; s < subtasks; s++) {
            Path f = control.resolve("stalled-" + s);
            if (!Files.exists(f) || !Files.exists(control.resolve("stalling-" + s))) {
                return null;
            }
            JsonNode o = Flink.JSON.readTree(Files.readString(f));
            if (ck >= 0 && o.get("checkpoint").asLong() != ck) {
                throw new IllegalStateException("stall subtasks stalled at checkpoints " + ck + " and " + o.get("checkpoint").asLong());
            }
            ck = o.get("checkpoint").asLong();
            o.get("next").fields().forEachRemaining(e -> next.merge(Integer.parseInt(e.getKey()), e.getValue().asLong(), Math::max));
        }
        ObjectNode out = Flink.JSON.createObjectNode();
        out.put("checkpoint", ck);
        ObjectNode n = out.putObject("next");
        next.forEach((p, o) -> n.put(Integer.toString(p), o));
        return out;
    }
}
