package io.resumekit.conformance;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
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
import org.apache.paimon.table.Table;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.table.source.StreamTableScan;
import org.apache.paimon.types.DataTypes;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * P4: consumer files across Go and Java, judged by Paimon's own code. A table gets one snapshot per
 * batch (Paimon's Java writer). Go → Java: {@code resumectl paimon reset-consumer --execute} writes
 * a consumer; Paimon's {@link ConsumerManager} must read the same next snapshot, and Paimon's stream
 * scan with that consumer-id must start there. Java → Go: {@link ConsumerManager#resetConsumer}
 * writes one; {@code resumectl paimon consumers} must read it, and {@code resumectl resolve} must
 * choose it — the stream scan opened with the decision's Launch.Options (the SQL hint options) must
 * start at the chosen snapshot.
 */
final class PaimonInterop {
    private PaimonInterop() {}

    static void run(Path w, JsonNode sc, Path resumectl, ObjectNode result) throws Exception {
        Path wh = w.resolve("wh");
        Options o = new Options();
        o.set("warehouse", wh.toUri().toString());
        ObjectNode fl = result.putObject("flink");
        ObjectNode rk = result.putObject("resumekit");
        int batches = sc.path("batches").asInt(5);
        try (Catalog cat = CatalogFactory.createCatalog(CatalogContext.create(o))) {
            cat.createDatabase("db", true);
            Identifier id = Identifier.create("db", "orders");
            cat.createTable(id, Schema.newBuilder().column("id", DataTypes.BIGINT()).column("batch", DataTypes.INT())
                    .option("file.format", "avro").option("bucket", "1").option("bucket-key", "id").build(), true);
            FileStoreTable t = (FileStoreTable) cat.getTable(id);
            for (int b = 1; b <= batches; b++) {
                BatchWriteBuilder wb = t.newBatchWriteBuilder();
                try (BatchTableWrite wr = wb.newWrite(); BatchTableCommit cm = wb.newCommit()) {
                    for (long r = 0; r < 10; r++) {
                        wr.write(GenericRow.of(b * 100L + r, b));
                    }
                    cm.commit(wr.prepareCommit());
                }
            }
            fl.put("snapshots", t.snapshotManager().latestSnapshotId());
            Path table = wh.resolve("db.db").resolve("orders");
            ConsumerManager cmgr = new ConsumerManager(t.fileIO(), t.location());
            List<String> problems = new ArrayList<>();

            // Go → Java
            JsonNode g2j = sc.get("goToJava");
            String c1 = g2j.get("consumer").asText();
            long n1 = g2j.get("nextSnapshot").asLong();
            String out = exec(w, "reset", resumectl.toString(), "paimon", "reset-consumer", table.toString(),
                    "--consumer", c1, "--next-snapshot", Long.toString(n1), "--execute");
            rk.put("reset_consumer", out.trim());
            Optional<Consumer> got = cmgr.consumer(c1);
            fl.put("java_reads_" + c1, got.map(Consumer::nextSnapshot).orElse(-1L));
            if (got.isEmpty() || got.get().nextSnapshot() != n1) {
                problems.add("Paimon's ConsumerManager reads " + got.map(c -> "nextSnapshot " + c.nextSnapshot()).orElse("no consumer")
                        + " for " + c1 + ", resumectl wrote " + n1);
            }
            long start1 = firstSnapshotRead(t, Map.of("consumer-id", c1));
            fl.put("stream_scan_starts_" + c1, start1);
            if (start1 != n1) {
                problems.add("Paimon's stream scan with consumer-id " + c1 + " starts at snapshot " + start1 + ", not " + n1);
            }

            // Java → Go
            JsonNode j2g = sc.get("javaToGo");
            String c2 = j2g.get("consumer").asText();
            long n2 = j2g.get("nextSnapshot").asLong();
            cmgr.resetConsumer(c2, new Consumer(n2));
            JsonNode cons = Flink.JSON.readTree(exec(w, "consumers", resumectl.toString(), "paimon", "consumers", table.toString(), "--json"));
            long goReads = -1;
            for (JsonNode c : cons.path("consumers")) {
                if (c.path("consumer_id").asText().equals(c2)) {
                    goReads = c.path("next_snapshot_id").asLong();
                }
            }
            rk.put("go_reads_" + c2, goReads);
            if (goReads != n2) {
                problems.add("resumectl paimon consumers reads " + goReads + " for " + c2 + ", Paimon wrote " + n2);
            }
            JsonNode dec = Flink.JSON.readTree(exec(w, "resolve", resumectl.toString(), "resolve", "--paimon-table", table.toString(),
                    "--paimon-consumer", c2, "--json"));
            JsonNode chosen = dec.path("chosen");
            rk.put("kind", chosen.path("kind").asText(null));
            rk.put("guarantee", chosen.path("guarantee").asText(null));
            rk.set("options", chosen.path("launch").path("options"));
            Map<String, String> opts = new HashMap<>();
            Iterator<Map.Entry<String, JsonNode>> it = chosen.path("launch").path("options").fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                opts.put(e.getKey(), e.getValue().asText());
            }
            if (!chosen.path("launch").path("args").isEmpty()) {
                problems.add("a consumer start must not restore state, but the launch has args " + chosen.path("launch").path("args"));
            }
            long start2 = opts.isEmpty() ? -1 : firstSnapshotRead(t, opts);
            fl.put("stream_scan_starts_with_launch", start2);
            if (start2 != n2) {
                problems.add("Paimon's stream scan opened with resumekit's options " + opts + " starts at snapshot " + start2 + ", the consumer file says " + n2);
            }
            result.put("passed", problems.isEmpty());
            if (!problems.isEmpty()) {
                result.put("why", String.join("; ", problems));
            }
        }
    }

    /** The snapshot the first plan of Paimon's stream scan with these options reads. */
    static long firstSnapshotRead(FileStoreTable t, Map<String, String> options) {
        Table tt = t.copy(options);
        StreamTableScan scan = tt.newReadBuilder().newStreamScan();
        for (int i = 0; i < 5; i++) {
            List<Split> splits = scan.plan().splits();
            TreeSet<Long> ids = new TreeSet<>();
            for (Split s : splits) {
                ids.add(((DataSplit) s).snapshotId());
            }
            if (!ids.isEmpty()) {
                return ids.first();
            }
        }
        return -1;
    }

    static String exec(Path w, String name, String... cmd) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.redirectErrorStream(false);
        pb.redirectError(w.resolve(name + ".err").toFile());
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(90, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new Scenarios.Mismatch(String.join(" ", cmd) + " did not end within 90 s");
        }
        String s = new String(out, StandardCharsets.UTF_8);
        Files.writeString(w.resolve(name + ".out"), s);
        if (p.exitValue() != 0) {
            throw new Scenarios.Mismatch(String.join(" ", cmd) + " exit " + p.exitValue() + ": " + Files.readString(w.resolve(name + ".err")));
        }
        return s;
    }
}
