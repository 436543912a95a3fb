package io.resumekit.conformance;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.functions.FunctionContext;
import org.apache.flink.table.functions.ScalarFunction;
import org.apache.paimon.Snapshot;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.table.source.ReadBuilder;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.locks.LockSupport;

/**
 * The Kafka→Paimon SQL job of the {@code kafkaPaimon} scenarios, run from a compiled plan through
 * {@link SqlPlanJob} ({@code "tables": "kafka-paimon"} in the job). Its tables are real
 * connectors: {@code src (v STRING)}, connector {@code kafka} over the scenario's topic (format raw,
 * the group's offsets committed on checkpoints, {@code scan.startup.mode group-offsets}, bounded at
 * the latest offsets), and {@code sink (id BIGINT)}, connector {@code paimon} over a table path (an
 * append table, fixed buckets, the job's {@code sinkOptions} added, e.g.
 * {@code sink.operator-uid.suffix}). The INSERT paces its rows with {@code rk_pace}, a scalar
 * function that passes its argument through at most {@code rate} rows a second per subtask (the
 * job parameter {@value #RATE}), so a run is still reading when it crashes.
 *
 * <p>Per-run wiring inside the plan (it changes no uid): the group id (trials get their own), the
 * source options of a stateless start (the decision's launch options, {@code sourceOptions} of the
 * variant), and the sink's path: the runs write the scenario's table; every other job (trials, the
 * new job of a stage) a copy of that table as the runs left it ({@code sink-pristine}), so no launch
 * sees another's commits. A run whose variant has {@code paimonHalt} writes through
 * {@link PaimonCommitHalt}'s scheme: its crash point sits in Paimon's committer.
 */
final class KafkaPaimonJob {
    private KafkaPaimonJob() {}

    static final String TABLES = "kafka-paimon";
    /** The pacing function's job parameter: rows a second per subtask (0: unpaced). */
    static final String RATE = "rk.pace.rate";

    static boolean is(JsonNode job) {
        return job != null && job.path("tables").asText("").equals(TABLES);
    }

    /**
     * A job with {@code "source": "paimon"} reads a Paimon table instead of the topic: {@code src (id
     * BIGINT)}, connector {@code paimon} over {@link #sourcePath} (an append table of 2 buckets the
     * harness fills before the plan is compiled, its ids 0..records-1 in {@value #SOURCE_COMMITS}
     * commits), read as a streaming source from snapshot 1 (scan.mode from-snapshot: each commit's
     * files, then its successors), the job's {@code sourceTableOptions} added (e.g. {@code source.operator-uid.suffix}).
     * Every launch reads the same table; none writes it.
     */
    static boolean paimonSource(JsonNode job) {
        return job != null && job.path("source").asText("").equals("paimon");
    }

    /**
     * Commits of the source table. Paimon's reader hands the chained, paced calc a split's batch in
     * one mailbox action, and the checkpoint waits behind it (a bucket of 1,500 rows held every
     * checkpoint 10 s), so the source reads incrementally from snapshot 1 (scan.mode from-snapshot:
     * a split per bucket and commit) and the ids are spread over many small commits.
     */
    static final int SOURCE_COMMITS = 24;

    /** The Paimon source table of a {@link #paimonSource} job. */
    static Path sourcePath(JsonNode job) {
        return sinkPath(job).resolveSibling("src");
    }

    /** Creates the Paimon source table and commits the ids 0..records-1 into it. */
    static void fillSource(JsonNode job) throws Exception {
        org.apache.paimon.fs.Path path = new org.apache.paimon.fs.Path(sourcePath(job).toUri());
        new org.apache.paimon.schema.SchemaManager(LocalFileIO.create(), path).createTable(
                org.apache.paimon.schema.Schema.newBuilder().column("id", org.apache.paimon.types.DataTypes.BIGINT())
                        .option("bucket", "2").option("bucket-key", "id").option("file.format", "avro").build());
        FileStoreTable t = FileStoreTableFactory.create(LocalFileIO.create(), path);
        long records = job.get("records").asLong();
        for (int c = 0; c < SOURCE_COMMITS; c++) {
            org.apache.paimon.table.sink.BatchWriteBuilder b = t.newBatchWriteBuilder();
            try (org.apache.paimon.table.sink.BatchTableWrite w = b.newWrite();
                    org.apache.paimon.table.sink.BatchTableCommit commit = b.newCommit()) {
                for (long id = records * c / SOURCE_COMMITS; id < records * (c + 1) / SOURCE_COMMITS; id++) {
                    w.write(org.apache.paimon.data.GenericRow.of(id));
                }
                commit.commit(w.prepareCommit());
            }
        }
    }

    /** The scenario's Paimon table (the runs write it). */
    static Path sinkPath(JsonNode job) {
        return Paths.get(job.get("sinkPath").asText());
    }

    /** The table as the runs left it, copied once after them; every later job writes a copy of it. */
    static Path pristine(JsonNode job) {
        return sinkPath(job).resolveSibling("sink-pristine");
    }

    /** Declares rk_pace and the two tables in t (the compiled plan records them). */
    static void declare(TableEnvironment t, JsonNode job) {
        t.executeSql("CREATE TEMPORARY SYSTEM FUNCTION rk_pace AS '" + Pace.class.getName() + "'");
        if (paimonSource(job)) {
            // scan.infer-parallelism off: the source runs at the job's parallelism, chained to the
            // paced calc (inferred from the splits, it sits behind a rebalance whose buffered backlog
            // holds every aligned barrier for seconds)
            StringBuilder src = new StringBuilder("CREATE TABLE src (id BIGINT) WITH ('connector'='paimon', 'path'='"
                    + Scenarios.flinkUri(sourcePath(job)) + "', 'scan.infer-parallelism'='false'"
                    + ", 'scan.mode'='from-snapshot', 'scan.snapshot-id'='1'");
            Iterator<Map.Entry<String, JsonNode>> it = job.path("sourceTableOptions").fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                src.append(", '").append(e.getKey()).append("'='").append(e.getValue().asText()).append('\'');
            }
            t.executeSql(src.append(')').toString());
        } else {
            t.executeSql("CREATE TABLE src (v STRING) WITH ('connector'='kafka', 'topic'='" + job.get("topic").asText()
                    + "', 'properties.bootstrap.servers'='" + job.get("bootstrap").asText()
                    + "', 'properties.group.id'='" + job.get("group").asText()
                    + "', 'properties.auto.offset.reset'='earliest', 'properties.commit.offsets.on.checkpoint'='true'"
                    + ", 'scan.startup.mode'='group-offsets', 'scan.bounded.mode'='latest-offset', 'format'='raw')");
        }
        StringBuilder sink = new StringBuilder("CREATE TABLE sink (id BIGINT) WITH ('connector'='paimon', 'path'='"
                + Scenarios.flinkUri(sinkPath(job)) + "', 'auto-create'='true', 'bucket'='"
                + job.path("buckets").asInt(2) + "', 'bucket-key'='id', 'file.format'='avro'");
        Iterator<Map.Entry<String, JsonNode>> it = job.path("sinkOptions").fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            sink.append(", '").append(e.getKey()).append("'='").append(e.getValue().asText()).append('\'');
        }
        t.executeSql(sink.append(')').toString());
    }

    /** What a launch needs besides the plan: the pacing rate as a job parameter. */
    static void configure(Configuration envConf, double rate) {
        envConf.setString("pipeline.global-job-parameters", RATE + ":" + rate);
    }

    /** rk_pace registered in the environment that loads the plan. */
    static void register(TableEnvironment t) {
        t.createTemporarySystemFunction("rk_pace", Pace.class);
    }

    /** Sets this launch's group, source options and sink path inside the plan. */
    static void wire(ObjectNode plan, JsonNode job, JsonNode variant, String journalDir, String tag) {
        int found = 0;
        for (JsonNode n : plan.get("nodes")) {
            for (String side : new String[] {"scanTableSource", "dynamicTableSink"}) {
                JsonNode opts = n.path(side).path("table").path("resolvedTable").path("options");
                if (!opts.isObject()) {
                    continue;
                }
                ObjectNode o = (ObjectNode) opts;
                String connector = o.path("connector").asText();
                if (connector.equals("kafka")) {
                    o.put("properties.group.id", job.get("group").asText());
                    Iterator<Map.Entry<String, JsonNode>> it = variant.path("sourceOptions").fields();
                    while (it.hasNext()) {
                        Map.Entry<String, JsonNode> e = it.next();
                        o.put(e.getKey(), e.getValue().asText());
                    }
                    found++;
                } else if (connector.equals("paimon") && side.equals("scanTableSource")) {
                    found++; // the source table: every launch reads it as it is
                } else if (connector.equals("paimon")) {
                    o.put("path", sinkOf(job, variant, journalDir, tag));
                    found++;
                }
            }
        }
        if (found < 2) {
            throw new IllegalStateException("the plan has no kafka or paimon source and paimon sink with their options");
        }
    }

    /** The path this launch's sink writes (a run: the table; anything else: a fresh copy of the pristine table). */
    static String sinkOf(JsonNode job, JsonNode variant, String journalDir, String tag) {
        Path table = sinkPath(job);
        if (tag.startsWith("run")) {
            return variant.path("paimonHalt").asBoolean(false) ? PaimonCommitHalt.SCHEME + "://" + table.toAbsolutePath()
                    : Scenarios.flinkUri(table);
        }
        // the copy keeps the table's directory name: Paimon names its operators after it
        // (Writer_<table>_<suffix>), so another name would be another job
        Path copy = copyOf(job, journalDir, tag);
        try {
            Scenarios.deleteTree(copy);
            Files.createDirectories(copy.getParent());
            if (Files.isDirectory(pristine(job))) {
                Scenarios.copyTree(pristine(job), copy);
            }
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
        return Scenarios.flinkUri(copy);
    }

    /** Where a launch other than a run writes its copy of the table. */
    static Path copyOf(JsonNode job, String journalDir, String tag) {
        return Paths.get(journalDir).resolveSibling("sink-" + tag).resolve(sinkPath(job).getFileName().toString());
    }

    /** The table's ids, each with how many rows hold it (a batch read of the latest snapshot). */
    static TreeMap<Long, Integer> rows(Path table) throws Exception {
        FileStoreTable t = FileStoreTableFactory.create(LocalFileIO.create(), new org.apache.paimon.fs.Path(table.toUri()));
        TreeMap<Long, Integer> out = new TreeMap<>();
        ReadBuilder rb = t.newReadBuilder();
        try (RecordReader<InternalRow> r = rb.newRead().createReader(rb.newScan().plan())) {
            r.forEachRemaining(row -> out.merge(row.getLong(0), 1, Integer::sum));
        }
        return out;
    }

    /** The table's latest snapshot as a fact (commit user, identifier, kind, rows), or null. */
    static ObjectNode latest(Path table) {
        FileStoreTable t = FileStoreTableFactory.create(LocalFileIO.create(), new org.apache.paimon.fs.Path(table.toUri()));
        Snapshot s = t.snapshotManager().latestSnapshot();
        if (s == null) {
            return null;
        }
        ObjectNode o = Flink.JSON.createObjectNode();
        o.put("id", s.id());
        o.put("commit_user", s.commitUser());
        o.put("commit_identifier", s.commitIdentifier());
        o.put("commit_kind", s.commitKind().name());
        o.put("total_records", s.totalRecordCount());
        return o;
    }

    /**
     * {@code rk_pace(x)}: x, at most {@value #RATE} rows a second per subtask (parked between rows);
     * the rate is a job parameter, so the same plan runs paced or at full speed.
     */
    public static final class Pace extends ScalarFunction {
        private static final long serialVersionUID = 1L;
        private transient long nanosPerRow;
        private transient long next;

        @Override
        public void open(FunctionContext ctx) {
            double rate = Double.parseDouble(ctx.getJobParameter(RATE, "0"));
            nanosPerRow = rate > 0 ? (long) (1e9 / rate) : 0;
        }

        public Long eval(Long v) {
            if (nanosPerRow > 0) {
                long now = System.nanoTime();
                next = next == 0 ? now + nanosPerRow : next + nanosPerRow;
                if (next > now) {
                    LockSupport.parkNanos(next - now);
                } else {
                    next = now;
                }
            }
            return v;
        }
    }
}
