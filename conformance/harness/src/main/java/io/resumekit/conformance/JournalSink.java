package io.resumekit.conformance;

import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;

/**
 * A two-phase (exactly-once) sink that writes one journal file per writer and checkpoint. The
 * committable carries the lines themselves, so it lives in the committer's checkpointed state;
 * commit writes {@code <dir>/<name>} atomically and is idempotent (a restored committable that
 * was already committed before the crash is not written twice). Reading the journal dir across
 * runs gives the output as a read_committed consumer would see it.
 */
public final class JournalSink extends SinkBase<String> implements SupportsCommitter<JournalSink.Batch> {
    private static final long serialVersionUID = 1L;
    private final String dir;
    private final String tag;

    public JournalSink(String dir, String tag) {
        this.dir = dir;
        this.tag = tag;
    }

    /** One prepared batch: its file name and lines. */
    public static final class Batch {
        final String name;
        final List<String> lines;

        Batch(String name, List<String> lines) {
            this.name = name;
            this.lines = lines;
        }
    }

    @Override
    public CommittingSinkWriter<String, Batch> createWriter(WriterInitContext context) {
        final String prefix = tag + "-" + UUID.randomUUID().toString().substring(0, 8) + "-"
                + context.getTaskInfo().getIndexOfThisSubtask();
        return new CommittingSinkWriter<>() {
            private List<String> buf = new ArrayList<>();
            private int seq;

            @Override
            public void write(String element, Context ctx) {
                buf.add(element);
            }

            @Override
            public void flush(boolean endOfInput) {}

            @Override
            public Collection<Batch> prepareCommit() {
                if (buf.isEmpty()) {
                    return List.of();
                }
                Batch b = new Batch(prefix + "-" + (seq++), buf);
                buf = new ArrayList<>();
                return List.of(b);
            }

            @Override
            public void close() {}
        };
    }

    @Override
    public Committer<Batch> createCommitter(CommitterInitContext context) {
        final String d = dir;
        return new Committer<>() {
            @Override
            public void commit(Collection<CommitRequest<Batch>> requests) throws IOException {
                Path base = Paths.get(d);
                Files.createDirectories(base);
                CrashPoint.beforeCommit(requests.size());
                for (CommitRequest<Batch> r : requests) {
                    Batch b = r.getCommittable();
                    Path target = base.resolve(b.name);
                    if (Files.exists(target)) {
                        continue;
                    }
                    Path tmp = base.resolve("." + b.name + ".tmp");
                    Files.write(tmp, String.join("\n", b.lines).concat("\n").getBytes(StandardCharsets.UTF_8));
                    Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
                }
            }

            @Override
            public void close() {}
        };
    }

    @Override
    public SimpleVersionedSerializer<Batch> getCommittableSerializer() {
        return new SimpleVersionedSerializer<>() {
            @Override
            public int getVersion() {
                return 1;
            }

            @Override
            public byte[] serialize(Batch b) throws IOException {
                ByteArrayOutputStream bo = new ByteArrayOutputStream();
                DataOutputStream o = new DataOutputStream(bo);
                o.writeUTF(b.name);
                o.writeInt(b.lines.size());
                for (String l : b.lines) {
                    o.writeUTF(l);
                }
                o.flush();
                return bo.toByteArray();
            }

            @Override
            public Batch deserialize(int version, byte[] bytes) throws IOException {
                DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
                String name = in.readUTF();
                int n = in.readInt();
                List<String> lines = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    lines.add(in.readUTF());
                }
                return new Batch(name, lines);
            }
        };
    }
}
