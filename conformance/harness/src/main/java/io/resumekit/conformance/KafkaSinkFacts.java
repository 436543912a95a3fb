package io.resumekit.conformance;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * What the broker says of a KafkaSink, through Kafka's own Admin and consumer (kafka-clients, not
 * resumekit): its transactions under a prefix (ListTransactions, DescribeTransactions), the output
 * topic as a {@code read_committed} and a {@code read_uncommitted} reader sees it, and a group's
 * committed offsets.
 */
final class KafkaSinkFacts {
    private KafkaSinkFacts() {}

    static Admin admin(String bootstrap) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
        return Admin.create(p);
    }

    static void createTopic(String bootstrap, String topic, int partitions) throws Exception {
        try (Admin a = admin(bootstrap)) {
            a.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(60, TimeUnit.SECONDS);
            Flink.await("leaders for every partition of " + topic, Duration.ofSeconds(60), () -> {
                try {
                    return a.describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS).get(topic)
                            .partitions().stream().allMatch(pi -> pi.leader() != null && !pi.leader().isEmpty());
                } catch (Exception e) {
                    return false;
                }
            });
        }
    }

    /**
     * Every transactional id under prefix with the coordinator's answer: state, producer id and
     * epoch, transaction.timeout.ms, the open transaction's start (-1 when none) and its partitions.
     */
    static ObjectNode transactions(String bootstrap, String prefix) throws Exception {
        ObjectNode out = Flink.JSON.createObjectNode();
        try (Admin a = admin(bootstrap)) {
            List<String> ids = new ArrayList<>();
            for (TransactionListing l : a.listTransactions().all().get(60, TimeUnit.SECONDS)) {
                if (l.transactionalId().startsWith(prefix)) {
                    ids.add(l.transactionalId());
                }
            }
            ids.sort(null);
            if (ids.isEmpty()) {
                return out;
            }
            Map<String, TransactionDescription> d = a.describeTransactions(ids).all().get(60, TimeUnit.SECONDS);
            for (String id : ids) {
                out.set(id, json(d.get(id)));
            }
        }
        return out;
    }

    /** The coordinator's answer for the given ids (an id it does not know: {"error": …}). */
    static ObjectNode describe(String bootstrap, List<String> ids) throws Exception {
        ObjectNode out = Flink.JSON.createObjectNode();
        try (Admin a = admin(bootstrap)) {
            var res = a.describeTransactions(ids);
            for (String id : ids) {
                try {
                    out.set(id, json(res.description(id).get(60, TimeUnit.SECONDS)));
                } catch (ExecutionException e) {
                    out.putObject(id).put("error", Flink.causes(e.getCause()));
                }
            }
        }
        return out;
    }

    static ObjectNode json(TransactionDescription t) {
        ObjectNode o = Flink.JSON.createObjectNode();
        o.put("state", t.state().toString());
        o.put("producer_id", t.producerId());
        o.put("epoch", t.producerEpoch());
        o.put("timeout_ms", t.transactionTimeoutMs());
        o.put("start_ms", t.transactionStartTimeMs().orElse(-1));
        ArrayNode ps = o.putArray("partitions");
        TreeSet<String> sorted = new TreeSet<>();
        for (TopicPartition tp : t.topicPartitions()) {
            sorted.add(tp.topic() + "/" + tp.partition());
        }
        sorted.forEach(ps::add);
        return o;
    }

    /** The ids of txns (as {@link #transactions}) in one of the states (Kafka's names, e.g. Ongoing). */
    static List<String> inState(JsonNode txns, String... states) {
        List<String> out = new ArrayList<>();
        txns.fields().forEachRemaining(e -> {
            for (String s : states) {
                if (e.getValue().path("state").asText().equalsIgnoreCase(s)) {
                    out.add(e.getKey());
                }
            }
        });
        return out;
    }

    /** A group's committed offsets by partition of topic. */
    static TreeMap<Integer, Long> committed(String bootstrap, String group, String topic) throws Exception {
        TreeMap<Integer, Long> out = new TreeMap<>();
        try (Admin a = admin(bootstrap)) {
            Map<TopicPartition, OffsetAndMetadata> m = a.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()
                    .get(60, TimeUnit.SECONDS);
            m.forEach((tp, om) -> {
                if (tp.topic().equals(topic) && om != null) {
                    out.put(tp.partition(), om.offset());
                }
            });
        }
        return out;
    }

    /** One output record: {@code id,key,count,epoch,subtask} and the partition it was written to. */
    static final class Rec {
        long id;
        int key;
        long count;
        long epoch;
        int subtask;
        int partition;
    }

    /**
     * The whole output topic as a reader with this isolation level sees it, from the beginning to
     * the end a fresh reader of that level finds (read_committed: the last stable offset; an open
     * transaction on it stops the read there).
     */
    static List<Rec> read(String bootstrap, String topic, boolean committed) throws Exception {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, committed ? "read_committed" : "read_uncommitted");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
        List<Rec> out = new ArrayList<>();
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p)) {
            List<TopicPartition> tps = new ArrayList<>();
            c.partitionsFor(topic, Duration.ofSeconds(30)).forEach(pi -> tps.add(new TopicPartition(topic, pi.partition())));
            c.assign(tps);
            c.seekToBeginning(tps);
            Map<TopicPartition, Long> end = c.endOffsets(tps, Duration.ofSeconds(30));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (tps.stream().anyMatch(tp -> c.position(tp, Duration.ofSeconds(30)) < end.get(tp))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("reading " + topic + " (" + (committed ? "read_committed" : "read_uncommitted")
                            + ") did not reach " + end + " within 60 s");
                }
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(500))) {
                    String[] f = r.value().split(",");
                    Rec x = new Rec();
                    x.id = Long.parseLong(f[0]);
                    x.key = Integer.parseInt(f[1]);
                    x.count = Long.parseLong(f[2]);
                    x.epoch = Long.parseLong(f[3]);
                    x.subtask = Integer.parseInt(f[4]);
                    x.partition = r.partition();
                    out.add(x);
                }
            }
        }
        return out;
    }
}
