package io.resumekit.conformance;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * Kafka scenarios (K1): input produced to a real broker, a job with a KafkaSource whose offsets are
 * committed on checkpoints, SIGKILLed; resumekit resolves from the group's committed offsets; the
 * new job is a Flink SQL query over the topic with the decision's Launch.Options as its
 * {@code OPTIONS} hint, bounded at the latest offsets; the output across both runs is judged
 * against the grade.
 */
final class KafkaScenario {
    private KafkaScenario() {}

    static void createAndFill(String bootstrap, String topic, int partitions, long records) throws Exception {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin a = Admin.create(p)) {
            a.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(60, TimeUnit.SECONDS);
            // A producer that starts before every partition has a leader gets NOT_LEADER_OR_FOLLOWER,
            // and an idempotent one can then fail with OutOfOrderSequence: records silently missing
            // from the input would read as data loss.
            Flink.await("leaders for every partition of " + topic, Duration.ofSeconds(60), () -> {
                try {
                    return a.describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS).get(topic)
                            .partitions().stream().allMatch(pi -> pi.leader() != null && !pi.leader().isEmpty());
                } catch (Exception e) {
                    return false;
                }
            });
        }
        Properties pp = new Properties();
        pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        pp.put(ProducerConfig.ACKS_CONFIG, "all");
        // Not idempotent: a broker that has not applied its leadership yet answers NOT_LEADER, and an
        // idempotent producer can then loop on OUT_OF_ORDER_SEQUENCE until its delivery timeout (seen
        // under load). One request in flight keeps the order; the end-offset check below catches a
        // duplicate or a gap.
        pp.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
        pp.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
        pp.put(ProducerConfig.RETRIES_CONFIG, Integer.toString(Integer.MAX_VALUE));
        pp.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "300000");
        List<java.util.concurrent.Future<org.apache.kafka.clients.producer.RecordMetadata>> sent = new ArrayList<>();
        try (KafkaProducer<String, String> pr = new KafkaProducer<>(pp)) {
            for (long i = 0; i < records; i++) {
                sent.add(pr.send(new ProducerRecord<>(topic, (int) (i % partitions), null, Long.toString(i))));
            }
            pr.flush();
            for (int i = 0; i < sent.size(); i++) {
                try {
                    sent.get(i).get(60, TimeUnit.SECONDS);
                } catch (java.util.concurrent.ExecutionException e) {
                    throw new IllegalStateException("producing the input of " + topic + " failed at record " + i
                            + ": the scenario's input would be incomplete", e.getCause());
                }
            }
        }
        // every partition holds exactly its share of the input
        try (Admin a = Admin.create(p)) {
            Map<org.apache.kafka.common.TopicPartition, org.apache.kafka.clients.admin.OffsetSpec> req = new java.util.HashMap<>();
            for (int i = 0; i < partitions; i++) {
                req.put(new org.apache.kafka.common.TopicPartition(topic, i), org.apache.kafka.clients.admin.OffsetSpec.latest());
            }
            var ends = a.listOffsets(req).all().get(60, TimeUnit.SECONDS);
            for (int i = 0; i < partitions; i++) {
                long want = records / partitions + (i < records % partitions ? 1 : 0);
                long got = ends.get(new org.apache.kafka.common.TopicPartition(topic, i)).offset();
                if (got != want) {
                    throw new IllegalStateException("input topic " + topic + " partition " + i + " ends at " + got + ", not " + want);
                }
            }
        }
    }

    /** The group's committed offsets as Kafka's Admin reads them (a fact for the summary). */
    static ObjectNode committed(String bootstrap, String group) throws Exception {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        ObjectNode o = Flink.JSON.createObjectNode();
        try (Admin a = Admin.create(p)) {
            a.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(60, TimeUnit.SECONDS)
                    .forEach((tp, om) -> o.put(tp.toString(), om == null ? -1 : om.offset()));
        }
        return o;
    }

    /** Deletes the partition's records below committed + past (Admin.deleteRecords): a retention gap. */
    static ObjectNode deleteRecords(String bootstrap, String topic, String group, int partition, long past) throws Exception {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        ObjectNode o = Flink.JSON.createObjectNode();
        try (Admin a = Admin.create(p)) {
            org.apache.kafka.common.TopicPartition tp = new org.apache.kafka.common.TopicPartition(topic, partition);
            org.apache.kafka.clients.consumer.OffsetAndMetadata om = a.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata().get(60, TimeUnit.SECONDS).get(tp);
            long committed = om == null ? 0 : om.offset();
            long before = committed + past;
            a.deleteRecords(Map.of(tp, org.apache.kafka.clients.admin.RecordsToDelete.beforeOffset(before)))
                    .all().get(60, TimeUnit.SECONDS);
            o.put("partition", partition);
            o.put("committed", committed);
            o.put("deleted_before", before);
        }
        return o;
    }

    /** The new job: SQL over the topic with the launch options as hints, then the standard pipeline tail. */
    static JobGraph sqlJob(Configuration conf, JsonNode job, Map<String, String> hints, String journal, String tag) {
        StreamExecutionEnvironment env = new StreamExecutionEnvironment(conf);
        env.setParallelism(job.path("parallelism").asInt(2));
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
        String sql = "SELECT v FROM src" + (h.length() > 0 ? " /*+ OPTIONS(" + h + ") */" : "");
        Table t = tEnv.sqlQuery(sql);
        DataStream<Row> rows = tEnv.toDataStream(t);
        DataStream<Long> ids = rows.map(r -> Long.parseLong(((String) r.getField(0)).trim()))
                .returns(Long.class).uid("sql-parse").name("sql-parse");
        return CountJob.finish(env, ids, job, Flink.JSON.createObjectNode(), journal, tag);
    }

    /**
     * The input ids a decision's position reports lost, from every position shape the decision
     * document has: a committed-offsets position ({@code partitions}: from the commit, or from 0 for a
     * partition started at its log start, up to the start offset) and a salvage position
     * ({@code sources[].positions}: the {@code lost} records below {@code log_start}). Ids are
     * produced round-robin, so offset k of partition p holds id k*partitions+p.
     */
    static java.util.TreeSet<Long> reportedLost(JsonNode position, int parts) {
        java.util.TreeSet<Long> reported = new java.util.TreeSet<>();
        for (JsonNode pt : position.path("partitions")) {
            long from;
            if (!pt.path("committed").isNull() && !pt.path("committed").isMissingNode()) {
                from = pt.get("committed").asLong();
            } else if (pt.path("from").asText().equals("log-start")) {
                from = 0;
            } else {
                continue;
            }
            for (long k = from; k < pt.get("offset").asLong(); k++) {
                reported.add(k * parts + pt.get("partition").asInt());
            }
        }
        for (JsonNode src : position.path("sources")) {
            for (JsonNode pt : src.path("positions")) {
                long lost = pt.path("lost").asLong(0);
                if (lost <= 0 || !pt.has("log_start")) {
                    continue;
                }
                long end = pt.get("log_start").asLong();
                for (long k = Math.max(0, end - lost); k < end; k++) {
                    reported.add(k * parts + pt.path("partition").asInt());
                }
            }
        }
        return reported;
    }

    static void launch(Path w, JsonNode sc, int si, ObjectNode job, JsonNode chosen, Configuration tconf, MiniCluster mc,
                       ObjectNode fl) throws Exception {
        Map<String, String> hints = new java.util.LinkedHashMap<>();
        Iterator<Map.Entry<String, JsonNode>> it = chosen.path("launch").path("options").fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            hints.put(e.getKey(), e.getValue().asText());
        }
        fl.set("hints", Flink.JSON.valueToTree(hints));
        if (!chosen.path("launch").path("args").isEmpty()) {
            throw new Scenarios.Mismatch("a Kafka offsets start must not restore state, but the launch has args " + chosen.path("launch").path("args"));
        }
        Path journal = w.resolve("stage-" + si + "/journal");
        JobGraph jg = sqlJob(tconf, job, hints, journal.toString(), "final" + si);
        JobID id = new JobID();
        jg.setJobID(id);
        mc.submitJob(jg).get(60, TimeUnit.SECONDS);
        long end = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (!Flink.status(mc, id).isGloballyTerminalState()) {
            if (System.nanoTime() > end) {
                mc.cancelJob(id).get(30, TimeUnit.SECONDS);
                throw new Scenarios.Mismatch("the new SQL job did not finish within 120 s");
            }
            Thread.sleep(50);
        }
        JobResult jr = mc.requestJobResult(id).get(30, TimeUnit.SECONDS);
        JobStatus st = Flink.status(mc, id);
        if (st != JobStatus.FINISHED) {
            throw new Scenarios.Mismatch("the new SQL job ended " + st + ": "
                    + jr.getSerializedThrowable().map(x -> Flink.causes(x.deserializeError(KafkaScenario.class.getClassLoader()))).orElse(""));
        }
        Output o = Output.read(List.of(w.resolve("journal"), journal));
        List<Long> rps = new ArrayList<>();
        rps.add(null);
        String grade = chosen.path("guarantee").asText();
        ObjectNode v = o.judge(sc.get("job").path("records").asLong(), job.path("keys").asInt(3), rps, null, grade);
        fl.setAll(v);
        boolean sinkPending = false;
        for (JsonNode wn : chosen.path("warnings")) {
            sinkPending |= wn.path("code").asText().equals("salvage.sink-transactions-pending");
        }
        if (grade.equals("data-loss") && sinkPending) {
            // F13: the salvaged snapshot's sink transactions were prepared, not committed, and a
            // stateless start never commits them. The loss must be real (else the grade is too
            // pessimistic for this run) and lie below the start: records the old job read before
            // the snapshot, whose output only those transactions held.
            int parts = job.path("keys").asInt(3);
            java.util.Map<Integer, Long> start = new java.util.HashMap<>();
            for (String part : hints.getOrDefault("scan.startup.specific-offsets", "").split(";")) {
                if (!part.isBlank()) {
                    String[] kv = part.split(",");
                    start.put(Integer.parseInt(kv[0].split(":")[1]), Long.parseLong(kv[1].split(":")[1]));
                }
            }
            java.util.TreeSet<Long> missing = o.missing(sc.get("job").path("records").asLong());
            fl.put("sink_transactions_lost", missing.size());
            if (missing.isEmpty()) {
                throw new Scenarios.Mismatch("graded data-loss for the sink's pending transactions, but every input was delivered");
            }
            for (long m : missing) {
                int p = (int) (m % parts);
                long off = m / parts;
                if (!start.containsKey(p) || off >= start.get(p)) {
                    throw new Scenarios.Mismatch("input " + m + " (partition " + p + " offset " + off + ") is missing at or above the salvage start " + start);
                }
            }
            if (v.path("delivered_twice").asLong() > 0) {
                throw new Scenarios.Mismatch("the salvage start delivered " + v.get("delivered_twice") + " inputs twice");
            }
            Files.writeString(w.resolve("kafka-verdict-" + si + ".json"), v.toString());
            return;
        }
        if (grade.equals("data-loss")) {
            // resumekit's reported range: per partition, the offsets between the commit and the start
            // it chose; ids are produced round-robin, so offset k of partition p holds id k*partitions+p.
            // A partition without a commit started at a log start above 0 reports offsets 0..start-1
            // lost (kafka.uncommitted-partition-truncated): its range begins at 0.
            java.util.TreeSet<Long> reported = reportedLost(chosen.path("position"), job.path("keys").asInt(3));
            java.util.TreeSet<Long> missing = o.missing(sc.get("job").path("records").asLong());
            fl.put("reported_lost", reported.size());
            java.util.TreeSet<Long> unreported = new java.util.TreeSet<>(missing);
            unreported.removeAll(reported);
            if (!unreported.isEmpty()) {
                throw new Scenarios.Mismatch(unreported.size() + " inputs are missing that resumekit did not report lost, first id " + unreported.first());
            }
            if (reported.isEmpty()) {
                throw new Scenarios.Mismatch("graded data-loss but no range reported");
            }
            // missing may be fewer than reported: the old job's sink committed some records its
            // offsets never did (KafkaSource commits lag under backpressure; resumekit cannot see the sink)
            fl.put("reported_but_delivered", reported.size() - missing.size());
        }
        if (v.has("mismatch")) {
            throw new Scenarios.Mismatch(v.get("mismatch").asText());
        }
        Files.writeString(w.resolve("kafka-verdict.json"), v.toString());
    }
}
