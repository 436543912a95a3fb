package io.resumekit.conformance;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.FilterFunction;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.functions.ReduceFunction;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.runtime.OperatorIDPair;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.StandardSinkTopologies;
import org.apache.flink.streaming.api.connector.sink2.SupportsPostCommitTopology;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.streaming.api.functions.co.CoMapFunction;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.streaming.api.graph.StreamConfig;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.zip.GZIPOutputStream;

/**
 * C2 ({@code "kind": "generated-ids"}): seeded random DataStream topologies (3–8 operators:
 * FLIP-27 sources, map/filter/flatMap, keyBy + process/reduce, rebalance/rescale, union,
 * connect, side outputs, a SinkV2 sink with or without committer, global committer and a pre-write
 * topology of its own, or a legacy SinkFunction sink; each
 * operator with a uid, a uid and a uid hash, a uid hash only, or nothing; chaining on, off, or
 * broken per operator), each built into a JobGraph by Flink 1.20 with no cluster. The truth is the
 * JobGraph's: for every operator of every vertex its {@link OperatorIDPair} (generated id, user
 * defined id) and the operator id its StreamConfig carries (the id its state is written under),
 * attributed to the user's operator through the StreamGraph node the chained config belongs to.
 * The file never says what resumekit derives; {@code flinkckpt.TestRealFlinkGeneratedIDs} does.
 */
final class GeneratedIds {
    private GeneratedIds() {}

    /** One operator the user wrote: what the topology's code said about it. */
    static final class Op {
        final String name;
        final String kind;
        String uid;
        String uidHash;
        String uidHashRefused;
        int transformationId = -1;

        Op(String name, String kind) {
            this.name = name;
            this.kind = kind;
        }
    }

    static void run(Path w, JsonNode sc, Path exportDir, ObjectNode result) throws Exception {
        long seed = sc.path("seed").asLong(20261201L);
        int n = sc.path("topologies").asInt(300);
        Random r = new Random(seed);
        ObjectNode facts = Flink.JSON.createObjectNode();
        facts.put("scenario", sc.get("name").asText());
        facts.put("flink", FlinkLine.version());
        facts.put("seed", seed);
        ArrayNode tops = facts.putArray("topologies");
        int operators = 0;
        int withUid = 0;
        int hashOnly = 0;
        int none = 0;
        int expansions = 0;
        int refused = 0;
        List<String> problems = new ArrayList<>();
        for (int t = 0; t < n; t++) {
            ObjectNode top = tops.addObject();
            top.put("t", t);
            try {
                build(r, t, top);
            } catch (Scenarios.Mismatch m) {
                problems.add("topology " + t + ": " + m.getMessage());
            }
            if (top.has("refused")) {
                refused++;
            }
            for (JsonNode node : top.path("nodes")) {
                operators++;
                if (node.has("uid")) {
                    withUid++;
                } else if (node.has("userDefined")) {
                    hashOnly++;
                } else {
                    none++;
                }
                if (node.path("expansion").asBoolean(false)) {
                    expansions++;
                }
            }
        }
        byte[] json = Flink.JSON.writeValueAsBytes(facts);
        Files.createDirectories(w);
        Path out = w.resolve("ids.json.gz");
        gzip(out, json);
        ObjectNode fl = result.putObject("flink");
        fl.put("topologies", n);
        fl.put("operators", operators);
        fl.put("operators_with_uid", withUid);
        fl.put("operators_with_uid_hash_only", hashOnly);
        fl.put("operators_without_uid", none);
        fl.put("sink_expansion_operators", expansions);
        fl.put("topologies_flink_refused", refused);
        fl.put("ids_json_bytes", json.length);
        fl.put("ids_gz_bytes", Files.size(out));
        // resumekit's side is compared without a JVM, against the export
        result.putObject("resumekit").put("checked_by", "flinkckpt.TestRealFlinkGeneratedIDs (go test ./flinkckpt)");
        result.put("passed", problems.isEmpty());
        if (!problems.isEmpty()) {
            result.put("why", String.join("; ", problems.subList(0, Math.min(5, problems.size()))));
        }
        if (exportDir != null) {
            Path dst = exportDir.resolve(sc.get("name").asText());
            Scenarios.deleteTree(dst);
            Files.createDirectories(dst);
            Files.copy(out, dst.resolve("ids.json.gz"));
            ObjectNode small = Flink.JSON.createObjectNode();
            small.put("scenario", sc.get("name").asText());
            small.put("flink", FlinkLine.version());
            small.put("generated_ids", "ids.json.gz");
            small.set("result", result.deepCopy());
            Flink.writeJson(dst.resolve("facts.json"), small);
        }
    }

    static void gzip(Path p, byte[] b) throws IOException {
        ByteArrayOutputStream bo = new ByteArrayOutputStream();
        try (OutputStream o = new GZIPOutputStream(bo)) {
            o.write(b);
        }
        Files.write(p, bo.toByteArray());
    }

    // ------------------------------------------------------------ generation

    /** Characters uids are drawn from: ASCII, separators, 2-, 3- and 4-byte UTF-8. */
    private static final String[] UID_CHARS = {
        "a", "b", "c", "k", "x", "z", "0", "7", "-", "_", ".", ":", " ", "/", "é", "ß", "ø", "日", "本", "€", "😀", "𝄞"
    };

    static String uid(Random r, Set<String> used) {
        while (true) {
            int len = 1 + r.nextInt(r.nextInt(4) == 0 ? 60 : 20);
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < len; i++) {
                b.append(r.nextInt(3) == 0 ? UID_CHARS[r.nextInt(UID_CHARS.length)] : String.valueOf((char) ('a' + r.nextInt(26))));
            }
            if (used.add(b.toString())) {
                return b.toString();
            }
        }
    }

    static String hash(Random r, Set<String> used) {
        while (true) {
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < 32; i++) {
                b.append(Character.forDigit(r.nextInt(16), 16));
            }
            if (used.add(b.toString())) {
                return b.toString();
            }
        }
    }

    /** Names the operator and gives it a uid, a uid and a hash, a hash, or nothing. */
    static <T> SingleOutputStreamOperator<T> ident(Random r, SingleOutputStreamOperator<T> s, Op op, Set<String> used, List<Op> ops) {
        s.name(op.name);
        int m = r.nextInt(100);
        if (m < 45) {
            op.uid = uid(r, used);
            s.uid(op.uid);
        } else if (m < 57) {
            op.uid = uid(r, used);
            op.uidHash = hash(r, used);
            s.uid(op.uid).setUidHash(op.uidHash);
        } else if (m < 70) {
            op.uidHash = hash(r, used);
            s.setUidHash(op.uidHash);
        }
        op.transformationId = s.getTransformation().getId();
        ops.add(op);
        return s;
    }

    static <T> SingleOutputStreamOperator<T> chain(Random r, SingleOutputStreamOperator<T> s, int parallelism) {
        int c = r.nextInt(12);
        if (c == 0) {
            s.startNewChain();
        } else if (c == 1) {
            s.disableChaining();
        }
        if (r.nextInt(6) == 0) {
            s.setParallelism(1 + r.nextInt(4));
        } else if (r.nextInt(10) == 0) {
            s.setMaxParallelism(128 << r.nextInt(3));
        }
        return s;
    }

    static void build(Random r, int t, ObjectNode top) throws Exception {
        Configuration conf = new Configuration();
        StreamExecutionEnvironment env = new StreamExecutionEnvironment(conf);
        int parallelism = 1 + r.nextInt(4);
        env.setParallelism(parallelism);
        boolean chaining = r.nextInt(4) != 0;
        if (!chaining) {
            env.disableOperatorChaining();
        }
        top.put("parallelism", parallelism);
        top.put("chaining", chaining);
        int total = 3 + r.nextInt(6); // operators the user writes, sink included
        Set<String> used = new HashSet<>();
        List<Op> ops = new ArrayList<>();
        int k = 0;
        int sources = total >= 4 && r.nextInt(3) == 0 ? 2 : 1;
        List<DataStream<Long>> heads = new ArrayList<>();
        for (int i = 0; i < sources; i++) {
            String name = "o" + (k++);
            SingleOutputStreamOperator<Long> s;
            if (r.nextBoolean()) {
                s = env.fromSequence(0, 9);
                ident(r, s, new Op(name, "source-sequence"), used, ops);
            } else {
                s = env.fromSource(new DataGeneratorSource<>(x -> x, 10, Types.LONG), WatermarkStrategy.noWatermarks(), name);
                ident(r, s, new Op(name, "source-datagen"), used, ops);
            }
            heads.add(chain(r, s, parallelism));
        }
        int budget = total - sources - 1;
        DataStream<Long> cur = heads.get(0);
        if (sources == 2) {
            if (budget > 0 && r.nextBoolean()) {
                SingleOutputStreamOperator<Long> c = heads.get(0).connect(heads.get(1)).map(new CoMap());
                cur = chain(r, ident(r, c, new Op("o" + (k++), "co-map"), used, ops), parallelism);
                budget--;
            } else {
                cur = heads.get(0).union(heads.get(1));
            }
        }
        while (budget > 0) {
            int c = r.nextInt(budget >= 2 ? 9 : 8);
            String name = "o" + (k++);
            SingleOutputStreamOperator<Long> s;
            String kind;
            switch (c) {
                case 0: s = cur.map(new Inc()); kind = "map"; break;
                case 1: s = cur.filter(new Even()); kind = "filter"; break;
                case 2: s = cur.flatMap(new Twice()); kind = "flat-map"; break;
                case 3: s = cur.keyBy(new Mod()).process(new Count()); kind = "keyed-process"; break;
                case 4: s = cur.keyBy(new Mod()).reduce(new Sum()); kind = "keyed-reduce"; break;
                case 5: s = cur.rebalance().map(new Inc()); kind = "rebalance-map"; break;
                case 6: s = cur.rescale().map(new Inc()); kind = "rescale-map"; break;
                case 7: s = cur.shuffle().filter(new Even()); kind = "shuffle-filter"; break;
                default: {
                    // a side output, mapped and unioned back: two operators
                    SingleOutputStreamOperator<Long> split = cur.process(new Split());
                    chain(r, ident(r, split, new Op(name, "side-split"), used, ops), parallelism);
                    SingleOutputStreamOperator<Long> side = split.getSideOutput(Split.ODD).map(new Inc());
                    chain(r, ident(r, side, new Op("o" + (k++), "side-map"), used, ops), parallelism);
                    cur = split.union(side);
                    budget -= 2;
                    continue;
                }
            }
            cur = chain(r, ident(r, s, new Op(name, kind), used, ops), parallelism);
            budget--;
        }
        // the sink: SinkV2 writer only, with a committer, with a committer and a global committer,
        // with a pre-write topology (a connector's own operators, one with a uid), or a legacy
        // SinkFunction (one operator, which takes a uid hash)
        String name = "o" + (k++);
        int sk = r.nextInt(5);
        String[] kinds = {"sink-writer", "sink-committer", "sink-global-committer", "sink-pre-write", "sink-legacy"};
        Op sinkOp = new Op(name, kinds[sk]);
        DataStreamSink<Long> sink = sk == 4 ? FlinkLine.legacyDiscardingSink(cur)
                : cur.sinkTo(sk == 0 ? new DiscardingSink<>() : sk == 1 ? new CommitSink() : sk == 2 ? new GlobalSink() : new PreWriteSink());
        sink.name(name);
        int m = r.nextInt(100);
        if (m < 65) {
            sinkOp.uid = uid(r, used);
            sink.uid(sinkOp.uid);
        }
        if (sk == 4 && m >= 55 && m < 75) {
            sinkOp.uidHash = hash(r, used);
            sink.setUidHash(sinkOp.uidHash);
        } else if (m >= 55 && m < 75) {
            // Flink 1.20 refuses a uid hash on a SinkV2 sink: recorded as a fact, the sink goes on without
            try {
                sink.setUidHash(hash(r, used));
            } catch (UnsupportedOperationException e) {
                sinkOp.uidHashRefused = e.getMessage();
            }
        }
        if (r.nextInt(8) == 0) {
            sink.disableChaining();
        }
        sinkOp.transformationId = sink.getTransformation().getId();
        ops.add(sinkOp);

        ArrayNode opsOut = top.putArray("ops");
        for (Op op : ops) {
            ObjectNode o = opsOut.addObject();
            o.put("name", op.name);
            o.put("kind", op.kind);
            if (op.uid != null) {
                o.put("uid", op.uid);
            }
            if (op.uidHash != null) {
                o.put("uidHash", op.uidHash);
            }
            if (op.uidHashRefused != null) {
                o.put("uidHashRefused", op.uidHashRefused);
            }
        }
        StreamGraph sg;
        try {
            sg = env.getStreamGraph(false);
        } catch (Exception e) {
            // Flink refuses the topology itself (a sink whose own topology sets uids needs a uid)
            top.put("refused", Flink.causes(e));
            return;
        }
        // pipeline.auto-generate-uids: false — does Flink accept this topology as one whose every
        // operator has a uid or a uid hash (what --flink-all-uids claims)?
        env.getConfig().disableAutoGeneratedUIDs();
        try {
            env.getStreamGraph().getJobGraph();
            top.put("autoUidsOff", "accepted");
        } catch (Exception e) {
            top.put("autoUidsOff", Flink.causes(e));
        }
        JobGraph jg;
        try {
            jg = sg.getJobGraph();
        } catch (Exception e) {
            top.put("refused", Flink.causes(e));
            return;
        }
        attribute(jg, sg, ops, sinkOp, top);
    }

    /** Every JobGraph operator with its ids, attributed to the user's operator it came from. */
    static void attribute(JobGraph jg, StreamGraph sg, List<Op> ops, Op sinkOp, ObjectNode top) throws Exception {
        Map<Integer, Op> byTransformation = new HashMap<>();
        int maxUserId = 0;
        for (Op op : ops) {
            byTransformation.put(op.transformationId, op);
            maxUserId = Math.max(maxUserId, op.transformationId);
        }
        ClassLoader cl = GeneratedIds.class.getClassLoader();
        ArrayNode nodes = top.putArray("nodes");
        Set<String> opsSeen = new HashSet<>();
        int vi = 0;
        for (JobVertex v : jg.getVerticesSortedTopologicallyFromSources()) {
            Map<String, OperatorIDPair> pairs = new LinkedHashMap<>();
            for (OperatorIDPair p : v.getOperatorIDs()) {
                if (pairs.put(p.getGeneratedOperatorID().toHexString(), p) != null) {
                    throw new Scenarios.Mismatch("vertex " + v.getName() + " has generated id " + p.getGeneratedOperatorID() + " twice");
                }
            }
            Map<Integer, StreamConfig> cfgs = new StreamConfig(v.getConfiguration()).getTransitiveChainedTaskConfigsWithSelf(cl);
            if (cfgs.size() != pairs.size()) {
                throw new Scenarios.Mismatch("vertex " + v.getName() + ": " + cfgs.size() + " chained configs, " + pairs.size() + " operator id pairs");
            }
            List<Map.Entry<Integer, StreamConfig>> sorted = new ArrayList<>(cfgs.entrySet());
            sorted.sort((a, b) -> Integer.compare(a.getValue().getChainIndex(), b.getValue().getChainIndex()));
            for (Map.Entry<Integer, StreamConfig> e : sorted) {
                StreamConfig c = e.getValue();
                StreamNode sn = sg.getStreamNode(e.getKey());
                String stateId = c.getOperatorID().toHexString();
                OperatorIDPair p = pairs.get(stateId);
                if (p == null) {
                    throw new Scenarios.Mismatch("vertex " + v.getName() + ": operator " + c.getOperatorName() + " runs as " + stateId
                            + ", which is no generated id of the vertex's OperatorIDPairs " + pairs.keySet());
                }
                ObjectNode o = nodes.addObject();
                Op op = byTransformation.get(e.getKey());
                boolean expansion = op == null;
                if (expansion) {
                    op = sinkOp; // the only operators no user transformation has are the SinkV2 expansion's
                    if (e.getKey() <= maxUserId) {
                        throw new Scenarios.Mismatch("operator " + sn.getOperatorName() + " belongs to no user operator and was not created by the sink's translation");
                    }
                }
                opsSeen.add(op.name);
                o.put("op", op.name);
                o.put("name", sn.getOperatorName());
                if (expansion) {
                    o.put("expansion", true);
                }
                if (sn.getTransformationUID() != null) {
                    o.put("uid", sn.getTransformationUID());
                }
                if (sn.getUserHash() != null) {
                    o.put("userHash", sn.getUserHash());
                }
                o.put("generated", p.getGeneratedOperatorID().toHexString());
                p.getUserDefinedOperatorID().ifPresent(u -> o.put("userDefined", u.toHexString()));
                o.put("vertex", vi);
                o.put("chainIndex", c.getChainIndex());
            }
            vi++;
        }
        for (Op op : ops) {
            if (!opsSeen.contains(op.name)) {
                throw new Scenarios.Mismatch("user operator " + op.name + " (" + op.kind + ") has no JobGraph operator");
            }
        }
    }

    // ------------------------------------------------------------ functions

    static final class Inc implements MapFunction<Long, Long> {
        @Override
        public Long map(Long v) {
            return v + 1;
        }
    }

    static final class Even implements FilterFunction<Long> {
        @Override
        public boolean filter(Long v) {
            return v % 2 == 0;
        }
    }

    static final class Twice implements FlatMapFunction<Long, Long> {
        @Override
        public void flatMap(Long v, Collector<Long> out) {
            out.collect(v);
            out.collect(v);
        }
    }

    static final class Mod implements KeySelector<Long, Long> {
        @Override
        public Long getKey(Long v) {
            return v % 4;
        }
    }

    static final class Sum implements ReduceFunction<Long> {
        @Override
        public Long reduce(Long a, Long b) {
            return a + b;
        }
    }

    static final class CoMap implements CoMapFunction<Long, Long, Long> {
        @Override
        public Long map1(Long v) {
            return v;
        }

        @Override
        public Long map2(Long v) {
            return -v;
        }
    }

    static final class Count extends KeyedProcessFunction<Long, Long, Long> {
        private transient ValueState<Long> n;

        @Override
        public void open(org.apache.flink.api.common.functions.OpenContext ctx) {
            n = getRuntimeContext().getState(new ValueStateDescriptor<>("n", Types.LONG));
        }

        @Override
        public void processElement(Long v, Context ctx, Collector<Long> out) throws Exception {
            long c = n.value() == null ? 1 : n.value() + 1;
            n.update(c);
            out.collect(c);
        }
    }

    static final class Split extends ProcessFunction<Long, Long> {
        static final OutputTag<Long> ODD = new OutputTag<>("odd", Types.LONG);

        @Override
        public void processElement(Long v, Context ctx, Collector<Long> out) {
            if (v % 2 == 0) {
                out.collect(v);
            } else {
                ctx.output(ODD, v);
            }
        }
    }

    /** A committable: one string. */
    static final class StringSerializer implements SimpleVersionedSerializer<String> {
        @Override
        public int getVersion() {
            return 1;
        }

        @Override
        public byte[] serialize(String s) {
            return s.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String deserialize(int version, byte[] b) {
            return new String(b, StandardCharsets.UTF_8);
        }
    }

    static final class NoCommit implements Committer<String> {
        @Override
        public void commit(Collection<CommitRequest<String>> requests) {}

        @Override
        public void close() {}
    }

    /** A SinkV2 sink with a committer (writer and "Sink Committer"). */
    static class CommitSink extends SinkBase<Long> implements SupportsCommitter<String> {
        @Override
        public CommittingSinkWriter<Long, String> createWriter(WriterInitContext context) {
            throw new UnsupportedOperationException("never run");
        }

        @Override
        public Committer<String> createCommitter(CommitterInitContext context) {
            return new NoCommit();
        }

        @Override
        public SimpleVersionedSerializer<String> getCommittableSerializer() {
            return new StringSerializer();
        }
    }

    /** A committer, and operators of the connector's own before the writer: one with a uid, one without. */
    static final class PreWriteSink extends CommitSink implements org.apache.flink.streaming.api.connector.sink2.SupportsPreWriteTopology<Long> {
        @Override
        public DataStream<Long> addPreWriteTopology(DataStream<Long> in) {
            return in.map(new Inc()).uid("pre-map").name("pre-map").filter(new Even()).name("pre-filter");
        }
    }

    /** A committer and a global committer (StandardSinkTopologies.addGlobalCommitter). */
    static final class GlobalSink extends CommitSink implements SupportsPostCommitTopology<String> {
        @Override
        public void addPostCommitTopology(DataStream<CommittableMessage<String>> committables) {
            StandardSinkTopologies.addGlobalCommitter(committables, NoCommit::new, StringSerializer::new);
        }
    }
}
