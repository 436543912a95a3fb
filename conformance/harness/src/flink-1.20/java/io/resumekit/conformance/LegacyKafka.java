package io.resumekit.conformance;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.connectors.kafka.FlinkKafkaConsumer;

import java.util.Properties;

/**
 * The legacy Kafka source (job {@code "source": "kafka-legacy"}): a FlinkKafkaConsumer (a
 * SourceFunction; its offsets in the union operator state "topic-partition-offset-states"), which
 * Flink 1.20 and flink-connector-kafka 3.x still have. src/flink-2.x has the same class, which refuses.
 */
final class LegacyKafka {
    private LegacyKafka() {}

    /** FlinkKafkaConsumer (uid {@code src}) from the group's offsets (earliest without), committed on checkpoints, then parse-long. */
    static DataStream<Long> source(StreamExecutionEnvironment env, JsonNode job, JsonNode variant) {
        Properties p = new Properties();
        p.setProperty("bootstrap.servers", job.get("bootstrap").asText());
        p.setProperty("group.id", job.get("group").asText());
        p.setProperty("auto.offset.reset", "earliest");
        FlinkKafkaConsumer<String> c = new FlinkKafkaConsumer<>(job.get("topic").asText(), new SimpleStringSchema(), p);
        c.setStartFromGroupOffsets();
        c.setCommitOffsetsOnCheckpoints(true);
        return env.addSource(c, "src").uid(CountJob.str(variant, "srcUid", "src")).name("src")
                .map(new CountJob.ParseLong()).uid("parse-long").name("parse-long");
    }
}
