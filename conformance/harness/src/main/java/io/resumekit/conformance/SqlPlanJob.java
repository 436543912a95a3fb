package io.resumekit.conformance;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.SupportsWriterState;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.api.dag.Pipeline;
import org.apache.flink.client.deployment.executors.PipelineExecutorUtils;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.PipelineExecutor;
import org.apache.flink.core.execution.PipelineExecutorFactory;
import org.apache.flink.core.execution.PipelineExecutorServiceLoader;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.SavepointRestoreSettings;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.PlanReference;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.sink.SinkV2Provider;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.connector.source.SourceProvider;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DynamicTableSinkFactory;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.types.RowKind;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;

/**
 * The SQL job of S1, run from a compiled plan. The harness provides two tables: {@code ids}
 * ({@code id BIGINT NOT NULL}, connector {@code rk-ids}: the ids 0..records-1 of the count job's
 * DataGeneratorSource, a FLIP-27 source whose split positions are in the checkpoint) and
 * {@code out} ({@code id BIGINT, k INT, cnt BIGINT}, connector {@code rk-journal}: the two-phase
 * {@link JournalSink}, each line tagged with its checkpoint epoch as the count job's {@code block}
 * does). The scenario's {@code job.sql} is the INSERT compiled with {@code compilePlanSql} (Flink
 * 1.20 defaults: {@code table.exec.uid.generation=PLAN_ONLY}, uids {@code <id>_<transformation>})
 * into {@code job.plan}.
 *
 * <p>Edited plans are data too: the scenario's {@code plans} map a file to
 * {@code {"from": PLAN, "sql": INSERT, "edit": [...]}} (the base plan when neither from nor sql is
 * given). An edit is {@code {"node": SEL, ...}} where SEL is a node id, an ExecNode type
 * ({@code "stream-exec-group-aggregate"}, version suffix optional) that must match exactly one
 * node, or {@code {"type": T, "n": I}} (the I-th node of type T in plan order), with any of
 * {@code "set": {"/json/pointer": value}} (RFC 6901 pointers inside the node, parents created; in a
 * string value {@code ${id}} is the node's id before the edit), {@code "remove": ["/pointer"]},
 * {@code "id": N} or {@code "id": "+N"} (the node renumbered, absolutely or by N, every edge with it).
 * Node ids are not 1..n: the planner numbers ExecNodes from a JVM-wide counter, so a plan compiled
 * after other SQL in the same JVM starts higher; edits select by type. The new job of a stage names
 * its plan as {@code variant.plan}; its table config as {@code variant.tableConfig}.
 *
 * <p>A plan runs through Flink's own client path: {@code loadPlan(...).execute()} on a
 * StreamTableEnvironment whose executor captures the JobGraph Flink's
 * {@link PipelineExecutorUtils#getJobGraph} makes; the restore keys of the launch
 * ({@code execution.state-recovery.*}) are given in the table config only, and the JobGraph's
 * restore settings must be what they mean. The per-run wiring (journal dir, tag, rate) is set on the
 * two harness tables' options inside the plan before it is loaded; it changes no uid.
 *
 * <p>A job with {@code "tables": "kafka-paimon"} declares real connectors instead (Kafka source,
 * Paimon sink: {@link KafkaPaimonJob}, which also wires them per run).
 */
final class SqlPlanJob {
    private SqlPlanJob() {}

    static final String SOURCE = "rk-ids";
    static final String SINK = "rk-journal";

    static boolean is(JsonNode job) {
        return job != null && job.path("type").asText("").equals("sqlPlan");
    }

    static String ddl(JsonNode job) {
        return "CREATE TABLE ids (id BIGINT NOT NULL) WITH ('connector'='" + SOURCE + "', 'records'='"
                + job.path("records").asLong(3000) + "', 'rate'='" + job.path("rate").asDouble(300) + "')";
    }

    static final String SINK_DDL = "CREATE TABLE `out` (id BIGINT, k INT, cnt BIGINT) WITH ('connector'='" + SINK
            + "', 'dir'='(per run)', 'tag'='(per run)')";

    /** compilePlanSql of one INSERT over the harness tables. */
    static String compile(JsonNode job, String sql) {
        TableEnvironment t = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        if (KafkaPaimonJob.is(job)) {
            KafkaPaimonJob.declare(t, job); // real connectors: Kafka source, Paimon sink
        } else {
            t.executeSql(ddl(job));
            t.executeSql(SINK_DDL);
        }
        return t.compilePlanSql(sql).asJsonString();
    }

    /** Writes job.plan and every plan of the scenario's {@code plans}, in file order. */
    static void preparePlans(JsonNode sc) throws Exception {
        JsonNode job = sc.get("job");
        Path base = Paths.get(job.get("plan").asText());
        Files.createDirectories(base.getParent());
        Files.writeString(base, pretty(Flink.JSON.readTree(compile(job, job.get("sql").asText()))));
        Iterator<Map.Entry<String, JsonNode>> it = sc.path("plans").fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            JsonNode p = e.getValue();
            JsonNode plan;
            if (p.has("sql")) {
                plan = Flink.JSON.readTree(compile(job, p.get("sql").asText()));
            } else {
                plan = Flink.JSON.readTree(Paths.get(p.path("from").asText(base.toString())).toFile());
            }
            for (JsonNode ed : p.path("edit")) {
                edit((ObjectNode) plan, ed);
            }
            Path f = Paths.get(e.getKey());
            Files.createDirectories(f.getParent());
            Files.writeString(f, pretty(plan));
        }
    }

    /** Copies the scenario's plan files into an export dir, under plans/. */
    static void exportPlans(Path dst, JsonNode sc, Path w) throws IOException {
        List<String> files = new ArrayList<>();
        files.add(sc.get("job").get("plan").asText());
        sc.path("plans").fieldNames().forEachRemaining(files::add);
        for (String f : files) {
            Path src = Paths.get(f);
            Path t = dst.resolve(w.relativize(src).toString());
            Files.createDirectories(t.getParent());
            Files.copy(src, t, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
    }

    static String pretty(JsonNode n) throws IOException {
        return Flink.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(n) + "\n";
    }

    // ------------------------------------------------------------ edits

    static void edit(ObjectNode plan, JsonNode ed) {
        ObjectNode node = select(plan, ed.get("node"));
        final int original = node.get("id").asInt();
        Iterator<Map.Entry<String, JsonNode>> sets = ed.path("set").fields();
        while (sets.hasNext()) {
            Map.Entry<String, JsonNode> s = sets.next();
            JsonNode value = s.getValue().isTextual()
                    ? Flink.JSON.getNodeFactory().textNode(s.getValue().asText().replace("${id}", Integer.toString(original)))
                    : s.getValue().deepCopy();
            List<String> ptr = pointer(s.getKey());
            ObjectNode parent = node;
            for (String k : ptr.subList(0, ptr.size() - 1)) {
                JsonNode c = parent.get(k);
                if (c == null || c.isNull()) {
                    parent = parent.putObject(k);
                } else if (c.isObject()) {
                    parent = (ObjectNode) c;
                } else {
                    throw new IllegalArgumentException("plan edit " + ed + ": " + k + " is not an object");
                }
            }
            parent.set(ptr.get(ptr.size() - 1), value);
        }
        for (JsonNode r : ed.path("remove")) {
            List<String> ptr = pointer(r.asText());
            JsonNode parent = node;
            for (String k : ptr.subList(0, ptr.size() - 1)) {
                parent = parent.path(k);
            }
            if (!parent.isObject() || !parent.has(ptr.get(ptr.size() - 1))) {
                throw new IllegalArgumentException("plan edit " + ed + ": nothing at " + r.asText());
            }
            ((ObjectNode) parent).remove(ptr.get(ptr.size() - 1));
        }
        if (ed.has("id")) {
            int from = original;
            String spec = ed.get("id").asText();
            int to = spec.startsWith("+") ? from + Integer.parseInt(spec.substring(1)) : Integer.parseInt(spec);
            for (JsonNode n : plan.get("nodes")) {
                if (n.get("id").asInt() == to) {
                    throw new IllegalArgumentException("plan edit " + ed + ": node id " + to + " is taken");
                }
            }
            node.put("id", to);
            for (JsonNode e : plan.get("edges")) {
                for (String end : new String[] {"source", "target"}) {
                    if (e.get(end).asInt() == from) {
                        ((ObjectNode) e).put(end, to);
                    }
                }
            }
        }
    }

    static ObjectNode select(ObjectNode plan, JsonNode sel) {
        List<ObjectNode> hits = new ArrayList<>();
        String want = sel.isObject() ? sel.path("type").asText() : sel.asText();
        for (JsonNode n : plan.get("nodes")) {
            String type = n.path("type").asText();
            boolean hit = sel.isInt() ? n.get("id").asInt() == sel.asInt()
                    : type.equals(want) || type.replaceFirst("_\\d+$", "").equals(want);
            if (hit) {
                hits.add((ObjectNode) n);
            }
        }
        if (sel.isObject()) {
            int i = sel.path("n").asInt(0);
            if (i < 0 || i >= hits.size()) {
                throw new IllegalArgumentException("plan edit: node " + sel + ": the plan has " + hits.size() + " nodes of that type");
            }
            return hits.get(i);
        }
        if (hits.size() != 1) {
            throw new IllegalArgumentException("plan edit: node " + sel + " matches " + hits.size() + " nodes, not one");
        }
        return hits.get(0);
    }

    static List<String> pointer(String p) {
        if (!p.startsWith("/") || p.length() < 2) {
            throw new IllegalArgumentException("plan edit: " + p + " is not a JSON pointer");
        }
        List<String> out = new ArrayList<>();
        for (String s : p.substring(1).split("/", -1)) {
            out.add(s.replace("~1", "/").replace("~0", "~"));
        }
        return out;
    }

    // ------------------------------------------------------------ build

    /** The JobGraph Flink's client makes of the plan (variant.plan, else job.plan) with this run's wiring. */
    static JobGraph build(Configuration conf, JsonNode job, JsonNode variant, String journalDir, String tag) {
        try {
            String file = variant.has("plan") ? variant.get("plan").asText() : job.get("plan").asText();
            ObjectNode plan = (ObjectNode) Flink.JSON.readTree(Paths.get(file).toFile());
            double rate = variant.has("rate") ? variant.get("rate").asDouble() : job.path("rate").asDouble(300);
            Configuration envConf = new Configuration();
            if (KafkaPaimonJob.is(job)) {
                KafkaPaimonJob.wire(plan, job, variant, journalDir, tag);
                KafkaPaimonJob.configure(envConf, rate);
            } else {
                wire(plan, journalDir, tag, rate);
            }
            Configuration restore = new Configuration();
            for (Map.Entry<String, String> e : conf.toMap().entrySet()) {
                if (e.getKey().startsWith("execution.state-recovery.") || e.getKey().startsWith("execution.savepoint.")
                        || e.getKey().equals("execution.savepoint-restore-mode")) {
                    restore.setString(e.getKey(), e.getValue());
                } else {
                    envConf.setString(e.getKey(), e.getValue());
                }
            }
            envConf.setString("execution.target", Capturing.NAME);
            Capturing cap = new Capturing();
            StreamExecutionEnvironment env = new StreamExecutionEnvironment(cap, envConf, SqlPlanJob.class.getClassLoader());
            env.setParallelism(CountJob.intOf(variant, "parallelism", CountJob.intOf(job, "parallelism", 2)));
            StreamTableEnvironment t = StreamTableEnvironment.create(env);
            if (KafkaPaimonJob.is(job)) {
                KafkaPaimonJob.register(t);
            }
            for (Map.Entry<String, String> e : restore.toMap().entrySet()) {
                t.getConfig().set(e.getKey(), e.getValue());
            }
            Iterator<Map.Entry<String, JsonNode>> tc = variant.path("tableConfig").fields();
            while (tc.hasNext()) {
                Map.Entry<String, JsonNode> e = tc.next();
                t.getConfig().set(e.getKey(), e.getValue().asText());
            }
            t.loadPlan(PlanReference.fromJsonString(Flink.JSON.writeValueAsString(plan))).execute();
            JobGraph jg = cap.graph;
            if (jg == null) {
                throw new IllegalStateException("the compiled plan " + file + " made no JobGraph");
            }
            SavepointRestoreSettings want = SavepointRestoreSettings.fromConfiguration(restore);
            if (!want.equals(jg.getSavepointRestoreSettings())) {
                throw new IllegalStateException("the plan's job launched with " + restore.toMap()
                        + " in its table config restores " + jg.getSavepointRestoreSettings() + ", not " + want);
            }
            return jg;
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
    }

    /** Sets the harness tables' per-run options inside the plan (changes no uid). */
    static void wire(ObjectNode plan, String journalDir, String tag, double rate) {
        int found = 0;
        for (JsonNode n : plan.get("nodes")) {
            for (String side : new String[] {"scanTableSource", "dynamicTableSink"}) {
                JsonNode opts = n.path(side).path("table").path("resolvedTable").path("options");
                if (!opts.isObject()) {
                    continue;
                }
                ObjectNode o = (ObjectNode) opts;
                if (o.path("connector").asText().equals(SINK)) {
                    o.put("dir", journalDir);
                    o.put("tag", tag);
                    found++;
                } else if (o.path("connector").asText().equals(SOURCE)) {
                    o.put("rate", Double.toString(rate));
                    found++;
                }
            }
        }
        if (found < 2) {
            throw new IllegalStateException("the plan has no " + SOURCE + " source and " + SINK + " sink with their options"
                    + " (table.plan.compile.catalog-objects must keep them)");
        }
    }

    /** A PipelineExecutor that keeps the JobGraph Flink's client makes instead of submitting it. */
    static final class Capturing implements PipelineExecutorServiceLoader, PipelineExecutorFactory, PipelineExecutor {
        static final String NAME = "conformance-capture";
        JobGraph graph;

        @Override
        public PipelineExecutorFactory getExecutorFactory(Configuration c) {
            return this;
        }

        @Override
        public Stream<String> getExecutorNames() {
            return Stream.of(NAME);
        }

        @Override
        public String getName() {
            return NAME;
        }

        @Override
        public boolean isCompatibleWith(Configuration c) {
            return true;
        }

        @Override
        public PipelineExecutor getExecutor(Configuration c) {
            return this;
        }

        @Override
        public CompletableFuture<JobClient> execute(Pipeline p, Configuration c, ClassLoader cl) throws Exception {
            graph = FlinkLine.jobGraph(p, c, cl);
            final JobID id = graph.getJobID();
            return CompletableFuture.completedFuture(new JobClient() {
                @Override
                public JobID getJobID() {
                    return id;
                }

                @Override
                public CompletableFuture<JobStatus> getJobStatus() {
                    return CompletableFuture.completedFuture(JobStatus.INITIALIZING);
                }

                @Override
                public CompletableFuture<Void> cancel() {
                    return CompletableFuture.completedFuture(null);
                }

                @Override
                public CompletableFuture<String> stopWithSavepoint(boolean drain, String dir, SavepointFormatType f) {
                    return CompletableFuture.failedFuture(new UnsupportedOperationException("captured, not submitted"));
                }

                @Override
                public CompletableFuture<String> triggerSavepoint(String dir, SavepointFormatType f) {
                    return CompletableFuture.failedFuture(new UnsupportedOperationException("captured, not submitted"));
                }

                @Override
                public CompletableFuture<Map<String, Object>> getAccumulators() {
                    return CompletableFuture.completedFuture(Map.of());
                }

                @Override
                public CompletableFuture<JobExecutionResult> getJobExecutionResult() {
                    return CompletableFuture.failedFuture(new UnsupportedOperationException("captured, not submitted"));
                }
            });
        }
    }

    // ------------------------------------------------------------ tables

    static final ConfigOption<Long> RECORDS = ConfigOptions.key("records").longType().defaultValue(3000L);
    static final ConfigOption<Double> RATE = ConfigOptions.key("rate").doubleType().defaultValue(300.0);
    static final ConfigOption<String> DIR = ConfigOptions.key("dir").stringType().noDefaultValue();
    static final ConfigOption<String> TAG = ConfigOptions.key("tag").stringType().noDefaultValue();

    /** {@code rk-ids}: the ids 0..records-1, rate-limited, FLIP-27 (DataGeneratorSource). */
    public static final class IdsFactory implements DynamicTableSourceFactory {
        @Override
        public String factoryIdentifier() {
            return SOURCE;
        }

        @Override
        public Set<ConfigOption<?>> requiredOptions() {
            return Set.of();
        }

        @Override
        public Set<ConfigOption<?>> optionalOptions() {
            return Set.of(RECORDS, RATE);
        }

        @Override
        public DynamicTableSource createDynamicTableSource(Context ctx) {
            FactoryUtil.TableFactoryHelper h = FactoryUtil.createTableFactoryHelper(this, ctx);
            h.validate();
            return new Ids(h.getOptions().get(RECORDS), h.getOptions().get(RATE));
        }
    }

    static final class Ids implements ScanTableSource {
        final long records;
        final double rate;

        Ids(long records, double rate) {
            this.records = records;
            this.rate = rate;
        }

        @Override
        public ChangelogMode getChangelogMode() {
            return ChangelogMode.insertOnly();
        }

        @Override
        public ScanRuntimeProvider getScanRuntimeProvider(ScanContext ctx) {
            return SourceProvider.of(new DataGeneratorSource<>(new IdRow(), records,
                    rate > 0 ? RateLimiterStrategy.perSecond(rate) : RateLimiterStrategy.noOp(),
                    InternalTypeInfo.ofFields(new BigIntType(false))));
        }

        @Override
        public DynamicTableSource copy() {
            return new Ids(records, rate);
        }

        @Override
        public String asSummaryString() {
            return SOURCE;
        }
    }

    static final class IdRow implements GeneratorFunction<Long, RowData> {
        private static final long serialVersionUID = 1L;

        @Override
        public RowData map(Long i) {
            return GenericRowData.of(i);
        }
    }

    /** {@code rk-journal}: the JournalSink for rows {@code (id, k, cnt)}; UPDATE_BEFORE and DELETE rows are not written. */
    public static final class JournalFactory implements DynamicTableSinkFactory {
        @Override
        public String factoryIdentifier() {
            return SINK;
        }

        @Override
        public Set<ConfigOption<?>> requiredOptions() {
            return Set.of(DIR, TAG);
        }

        @Override
        public Set<ConfigOption<?>> optionalOptions() {
            return Set.of();
        }

        @Override
        public DynamicTableSink createDynamicTableSink(Context ctx) {
            FactoryUtil.TableFactoryHelper h = FactoryUtil.createTableFactoryHelper(this, ctx);
            h.validate();
            return new Journal(h.getOptions().get(DIR), h.getOptions().get(TAG));
        }
    }

    static final class Journal implements DynamicTableSink {
        final String dir;
        final String tag;

        Journal(String dir, String tag) {
            this.dir = dir;
            this.tag = tag;
        }

        @Override
        public ChangelogMode getChangelogMode(ChangelogMode requested) {
            return ChangelogMode.all();
        }

        @Override
        public SinkRuntimeProvider getSinkRuntimeProvider(Context ctx) {
            return SinkV2Provider.of(new RowJournalSink(dir, tag));
        }

        @Override
        public DynamicTableSink copy() {
            return new Journal(dir, tag);
        }

        @Override
        public String asSummaryString() {
            return SINK;
        }
    }

    /**
     * JournalSink for rows: lines {@code id,k,cnt,epoch}, where epoch e means the row was written
     * after checkpoint e−1 of this lineage (the writer's restored checkpoint id + 1, then each
     * checkpoint id + 1 as the writer snapshots). The writer's state is empty.
     */
    static final class RowJournalSink extends SinkBase<RowData> implements SupportsCommitter<JournalSink.Batch>,
            SupportsWriterState<RowData, Long> {
        private static final long serialVersionUID = 1L;
        final JournalSink lines;
        final String tag;

        RowJournalSink(String dir, String tag) {
            this.lines = new JournalSink(dir, tag);
            this.tag = tag;
        }

        interface Writer extends CommittingSinkWriter<RowData, JournalSink.Batch>, StatefulSinkWriter<RowData, Long> {}

        @Override
        public Writer createWriter(WriterInitContext context) {
            final String prefix = tag + "-" + java.util.UUID.randomUUID().toString().substring(0, 8) + "-"
                    + context.getTaskInfo().getIndexOfThisSubtask();
            OptionalLong restored = context.getRestoredCheckpointId();
            return new Writer() {
                private List<String> buf = new ArrayList<>();
                private int seq;
                private long epoch = restored.orElse(0L) + 1;

                @Override
                public void write(RowData r, Context ctx) {
                    if (r.getRowKind() == RowKind.INSERT || r.getRowKind() == RowKind.UPDATE_AFTER) {
                        buf.add(r.getLong(0) + "," + r.getInt(1) + "," + r.getLong(2) + "," + epoch);
                    }
                }

                @Override
                public void flush(boolean endOfInput) {}

                @Override
                public Collection<JournalSink.Batch> prepareCommit() {
                    if (buf.isEmpty()) {
                        return List.of();
                    }
                    JournalSink.Batch b = new JournalSink.Batch(prefix + "-" + (seq++), buf);
                    buf = new ArrayList<>();
                    return List.of(b);
                }

                @Override
                public List<Long> snapshotState(long checkpointId) {
                    epoch = checkpointId + 1;
                    return List.of();
                }

                @Override
                public void close() {}
            };
        }

        @Override
        public StatefulSinkWriter<RowData, Long> restoreWriter(WriterInitContext context, Collection<Long> state) {
            return createWriter(context);
        }

        @Override
        public SimpleVersionedSerializer<Long> getWriterStateSerializer() {
            return new SimpleVersionedSerializer<>() {
                @Override
                public int getVersion() {
                    return 1;
                }

                @Override
                public byte[] serialize(Long v) {
                    return java.nio.ByteBuffer.allocate(8).putLong(v).array();
                }

                @Override
                public Long deserialize(int version, byte[] b) {
                    return java.nio.ByteBuffer.wrap(b).getLong();
                }
            };
        }

        @Override
        public Committer<JournalSink.Batch> createCommitter(CommitterInitContext context) {
            return lines.createCommitter(context);
        }

        @Override
        public SimpleVersionedSerializer<JournalSink.Batch> getCommittableSerializer() {
            return lines.getCommittableSerializer();
        }
    }
}
