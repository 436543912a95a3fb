package io.resumekit.conformance;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The legacy Kafka source (job {@code "source": "kafka-legacy"}) on Flink 2.x: there is none.
 * SourceFunction is gone from Flink 2.0 and FlinkKafkaConsumer from flink-connector-kafka 4.0
 * (FLINK-36848); a scenario runs it on Flink 1.20 ("onFlink": "1.20").
 */
final class LegacyKafka {
    private LegacyKafka() {}

    /** Always refuses: Flink 2.x has no FlinkKafkaConsumer. */
    static DataStream<Long> source(StreamExecutionEnvironment env, JsonNode job, JsonNode variant) {
        throw new UnsupportedOperationException("the legacy FlinkKafkaConsumer does not exist on Flink 2.x (SourceFunction removed in 2.0,"
                + " FlinkKafkaConsumer in flink-connector-kafka 4.0, FLINK-36848): run it \"onFlink\": \"1.20\"");
    }
}
