package io.resumekit.conformance;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.FileIOLoader;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;

import java.io.IOException;
import java.nio.file.Files;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * A crash point inside Paimon's committer: the local file system under the scheme
 * {@value #SCHEME} (a Paimon {@link FileIOLoader}, discovered by Paimon's service loader), which
 * halts the JVM (exit 137, like SIGKILL) as the committer is about to write a snapshot file
 * ({@code tryToWriteAtomic} of {@code snapshot-N}, Paimon's atomic commit: its manifests are written,
 * the snapshot is not) when {@code <control>/arm-commit-halt} exists (FlinkNode's {@code crash:
 * commit}). Before it halts it waits (up to 30 s) until the Kafka group's committed offsets cover
 * every row that commit would hold (their sum reaches the snapshot's {@code totalRecordCount}: the
 * job reads the topic from offset 0 into an append table, one row a record), i.e. until the
 * KafkaSource's notification of the same checkpoint committed the group's offsets. So the crash
 * lands between the source's notification and the Paimon committer's: the group is ahead of the
 * table. {@code <control>/commit-halted} records what it saw ({@code sourceCommitted} false when
 * the offsets never caught up: the crash point missed).
 */
public final class PaimonCommitHalt extends LocalFileIO {
    private static final long serialVersionUID = 1L;

    static final String SCHEME = "rkhalt";

    @Override
    public boolean tryToWriteAtomic(Path path, String content) throws IOException {
        if (path.getName().startsWith("snapshot-")) {
            maybeHalt(content);
        }
        return super.tryToWriteAtomic(path, content);
    }

    static void maybeHalt(String snapshotJson) throws IOException {
        java.nio.file.Path c = CrashPoint.control();
        if (c == null || !Files.exists(c.resolve("arm-commit-halt"))) {
            return;
        }
        JsonNode snap = Flink.JSON.readTree(snapshotJson);
        long rows = snap.path("totalRecordCount").asLong(-1);
        JsonNode kafka = Flink.JSON.readTree(c.resolveSibling("kafka-paimon-halt.json").toFile());
        ObjectNode seen = Flink.JSON.createObjectNode();
        seen.put("commitIdentifier", snap.path("commitIdentifier").asLong());
        seen.put("commitUser", snap.path("commitUser").asText());
        seen.put("commitKind", snap.path("commitKind").asText());
        seen.put("totalRecordCount", rows);
        long committed = -1;
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.get("bootstrap").asText());
        try (Admin a = Admin.create(p)) {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (System.nanoTime() < end) {
                Map<org.apache.kafka.common.TopicPartition, OffsetAndMetadata> offs = a.listConsumerGroupOffsets(kafka.get("group").asText())
                        .partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
                committed = offs.values().stream().mapToLong(o -> o == null ? 0 : o.offset()).sum();
                if (committed >= rows) {
                    break;
                }
                Thread.sleep(20);
            }
        } catch (Exception e) {
            seen.put("error", Flink.causes(e));
        }
        seen.put("groupOffsetsSum", committed);
        seen.put("sourceCommitted", committed >= rows);
        Files.writeString(c.resolve("commit-halted"), seen.toString());
        Runtime.getRuntime().halt(137);
    }

    /** The loader Paimon's {@code FileIO.get} discovers for {@value #SCHEME}. */
    public static final class Loader implements FileIOLoader {
        private static final long serialVersionUID = 1L;

        @Override
        public String getScheme() {
            return SCHEME;
        }

        @Override
        public FileIO load(Path path) {
            return new PaimonCommitHalt();
        }
    }
}
