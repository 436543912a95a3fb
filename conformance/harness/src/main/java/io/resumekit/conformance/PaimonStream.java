package io.resumekit.conformance;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.consumer.Consumer;
import org.apache.paimon.consumer.ConsumerManager;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.options.Options;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.types.DataTypes;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Paimon streaming scenarios (P1): a table gets one snapshot per batch (Paimon's Java writer, batch
 * commits); a Flink SQL streaming reader with a consumer-id (the scenario's hints) feeds the count
 * pipeline and is SIGKILLed; its savepoints count as lost. resumekit resolves from the consumer
 * file; Paimon's ConsumerManager says what the file holds; the new streaming SQL reader runs with
 * the decision's Launch.Options as its {@code OPTIONS} hint until every input id is committed, and
 * the output across both runs is judged against the grade.
 */
final class PaimonStream {
    private PaimonStream() {}

    static Identifier ID = Identifier.create("db", "orders");

    static FileStoreTable table(Catalog cat) throws Exception {
        return (FileStoreTable) cat.getTable(ID);
    }

    static Catalog catalog(Path wh) {
        Options o = new Options();
        o.set("warehouse", wh.toUri().toString());
        return CatalogFactory.createCatalog(CatalogContext.create(o));
    }

    /** Writes batches [from, to) of per ids each, one batch commit (snapshot) per batch. */
    static void write(Path wh, int from, int to, int per) throws Exception {
        try (Catalog cat = catalog(wh)) {
            cat.createDatabase("db", true);
            cat.createTable(ID, Schema.newBuilder().column("id", DataTypes.BIGINT()).column("batch", DataTypes.INT())
                    .option("file.format", "avro").option("bucket", "1").option("bucket-key", "id")
                    .option("consumer.expiration-time", "1 h").build(), true);
            FileStoreTable t = table(cat);
            for (int b = from; b < to; b++) {
                BatchWriteBuilder wb = t.newBatchWriteBuilder();
                try (BatchTableWrite wr = wb.newWrite(); BatchTableCommit cm = wb.newCommit()) {
                    for (long r = 0; r < per; r++) {
                        wr.write(GenericRow.of((long) b * per + r, b));
                    }
                    cm.commit(wr.prepareCommit());
                }
            }
        }
    }

    /** The streaming SQL reader: the Paimon table with these hints, then the standard pipeline tail. */
    static JobGraph sqlJob(Configuration conf, JsonNode job, JsonNode variant, Map<String, String> hints, String journal, String tag) {
        StreamExecutionEnvironment env = new StreamExecutionEnvironment(conf);
        env.setParallelism(job.path("parallelism").asInt(1));
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        tEnv.executeSql("CREATE CATALOG pc WITH ('type'='paimon', 'warehouse'='"
                + Path.of(job.get("warehouse").asText()).toUri() + "')");
        StringBuilder h = new StringBuilder();
        for (Map.Entry<String, String> e : hints.entrySet()) {
            if (h.length() > 0) {
                h.append(", ");
            }
            h.append('\'').append(e.getKey().replace("'", "''")).append("'='").append(e.getValue().replace("'", "''")).append('\'');
        }
        String sql = "SELECT id FROM pc.db.orders" + (h.length() > 0 ? " /*+ OPTIONS(" + h + ") */" : "");
        Table t = tEnv.sqlQuery(sql);
        DataStream<Row> rows = tEnv.toDataStream(t);
        DataStream<Long> ids = rows.map(r -> (Long) r.getField(0)).returns(Long.class).uid("sql-id").name("sql-id");
        return CountJob.finish(env, ids, job, variant, journal, tag);
    }

    static Map<String, String> map(JsonNode n) {
        Map<String, String> m = new LinkedHashMap<>();
        Iterator<Map.Entry<String, JsonNode>> it = n.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            m.put(e.getKey(), e.getValue().asText());
        }
        return m;
    }

    /** Checks the decision against Paimon's own reading of the consumer file, then runs the new reader. */
    static void launch(Path w, JsonNode sc, ObjectNode job, JsonNode chosen, Configuration tconf, MiniCluster mc,
                       ObjectNode fl) throws Exception {
        Path wh = Path.of(job.get("warehouse").asText());
        String consumer = job.get("hints").get("consumer-id").asText();
        long next;
        try (Catalog cat = catalog(wh)) {
            FileStoreTable t = table(cat);
            Optional<Consumer> c = new ConsumerManager(t.fileIO(), t.location()).consumer(consumer);
            if (c.isEmpty()) {
                throw new Scenarios.Mismatch("the killed reader left no consumer " + consumer + " (Paimon's ConsumerManager)");
            }
            next = c.get().nextSnapshot();
            fl.put("consumer_next_snapshot", next);
            fl.put("latest_snapshot", t.snapshotManager().latestSnapshotId());
        }
        long got = chosen.path("position").path("next_snapshot").asLong(-1);
        if (got != next) {
            throw new Scenarios.Mismatch("resumekit starts at snapshot " + got + ", Paimon's ConsumerManager reads consumer "
                    + consumer + " at " + next);
        }
        Map<String, String> hints = map(chosen.path("launch").path("options"));
        fl.set("hints", Flink.JSON.valueToTree(hints));
        if (!chosen.path("launch").path("args").isEmpty()) {
            throw new Scenarios.Mismatch("a consumer start must not restore state, but the launch has args " + chosen.path("launch").path("args"));
        }
        if (!Long.toString(next).equals(hints.get("scan.snapshot-id"))) {
            throw new Scenarios.Mismatch("the launch has no scan.snapshot-id fallback at " + next + ": " + hints);
        }
        long records = job.get("records").asLong();
        fl.put("ids_committed_by_killed_reader", records - Output.read(List.of(w.resolve("journal"))).missing(records).size());
        Path journal = w.resolve("stage-0/journal");
        Files.createDirectories(journal);
        JobGraph jg = sqlJob(tconf, job, Flink.JSON.createObjectNode(), hints, journal.toString(), "final0");
        JobID id = new JobID();
        jg.setJobID(id);
        mc.submitJob(jg).get(60, TimeUnit.SECONDS);
        List<Path> dirs = List.of(w.resolve("journal"), journal);
        try {
            try {
            // a streaming reader never ends: run it until every input id is committed, then two
            // more checkpoints (so copies read twice would be committed too)
            Flink.await("every input committed by the new reader", Duration.ofSeconds(120), () -> {
                try {
                    return Output.read(dirs).missing(records).isEmpty();
                } catch (Exception e) {
                    return false;
                }
            });
            } catch (Exception e) {
                fl.put("new_reader_incomplete", Flink.causes(e));
            }
            int have = Flink.completed(mc, id).size();
            Flink.await("2 more checkpoints of the new reader", Duration.ofSeconds(60), () -> Flink.completed(mc, id).size() >= have + 2);
        } finally {
            mc.cancelJob(id).get(30, TimeUnit.SECONDS);
        }
        Output o = Output.read(dirs);
        List<Long> rps = new java.util.ArrayList<>();
        rps.add(null);
        String grade = chosen.path("guarantee").asText();
        ObjectNode v = o.judge(records, job.path("keys").asInt(3), rps, null, grade);
        fl.setAll(v);
        if (v.has("mismatch")) {
            throw new Scenarios.Mismatch(v.get("mismatch").asText());
        }
    }
}
