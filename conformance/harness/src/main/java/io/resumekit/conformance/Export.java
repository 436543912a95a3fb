package io.resumekit.conformance;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * {@code --export DIR}: a scenario's checkpoint and savepoint trees as Flink left them (after the
 * damage), for Go tests that need no JVM. Files up to {@link #KEEP} bytes (and every {@code _metadata}) are copied; larger ones
 * (RocksDB ssts, DSTL files) become zero-filled files of the same size, which keeps every
 * reference checkable by size. {@code facts.json} holds Flink's view: per snapshot its id,
 * whether it has a {@code _metadata}, whether a new job restored it (and the error when not), the
 * files it references (read by Flink's own {@code Checkpoints.loadCheckpointMetadata}), relative
 * to the export's root, and its operators.
 */
final class Export {
    static final long KEEP = 4 * 1024;
    /** Operator state files (source readers, sink committers) are kept real up to this size. */
    static final long KEEP_OPERATOR = 64 * 1024;

    private Export() {}

    /**
     * Whether a trial in this claim mode lets Flink own the snapshot it restores: CLAIM (and
     * LEGACY) let the new job delete files the snapshot references — Flink 2.2.0 deleted the
     * task-owned DSTL files of F3's claimed changelog checkpoint — so the trees are exported before
     * the first such trial ({@link #trees}), not after the scenario.
     */
    static boolean owns(String claimMode) {
        return claimMode != null && !claimMode.isEmpty() && !claimMode.equalsIgnoreCase("NO_CLAIM");
    }

    /** The trees, then Flink's facts: for a scenario whose trees were not exported earlier. */
    static void write(Path dst, Path w, List<Scenarios.Snap> snaps, ObjectNode result) throws IOException {
        trees(dst, w, snaps);
        facts(dst, w, snaps, result);
    }

    /**
     * The scenario's trees as they are now into dst (replacing it): files up to {@link #KEEP}
     * bytes, every {@code _metadata} and operator state files up to {@link #KEEP_OPERATOR} as they
     * are, larger ones zero-filled at their size.
     */
    static void trees(Path dst, Path w, List<Scenarios.Snap> snaps) throws IOException {
        Scenarios.deleteTree(dst);
        Files.createDirectories(dst);
        // Operator (non-keyed) state files stay real up to KEEP_OPERATOR: source reader and sink
        // committer state are what resumekit decodes; keyed state and ssts are only checked by size.
        java.util.Set<Path> operatorFiles = new java.util.HashSet<>();
        for (Scenarios.Snap sn : snaps) {
            if (!sn.hasMetadata) {
                continue;
            }
            try {
                var md = References.load(sn.dir);
                java.util.TreeSet<String> out = new java.util.TreeSet<>();
                for (var op : md.getOperatorStates()) {
                    for (var st : op.getSubtaskStates().values()) {
                        st.getManagedOperatorState().forEach(h -> References.collect(h, out));
                    }
                }
                for (String u : out) {
                    if (u.startsWith("file:")) {
                        operatorFiles.add(Path.of(java.net.URI.create(u.replaceFirst("^file:/+", "file:///"))).normalize());
                    }
                }
            } catch (Exception e) {
                // a damaged _metadata: nothing to keep beyond the size rule
            }
        }
        for (String tree : new String[] {"ck", "sp", "dstl"}) {
            Path src = w.resolve(tree);
            if (!Files.isDirectory(src)) {
                continue;
            }
            try (Stream<Path> s = Files.walk(src)) {
                for (Path x : (Iterable<Path>) s::iterator) {
                    Path t = dst.resolve(w.relativize(x).toString());
                    if (Files.isDirectory(x)) {
                        Files.createDirectories(t);
                    } else if (Files.size(x) <= KEEP || x.getFileName().toString().equals("_metadata")
                            || (Files.size(x) <= KEEP_OPERATOR && operatorFiles.contains(x.toAbsolutePath().normalize()))) {
                        Files.copy(x, t);
                    } else {
                        long n = Files.size(x);
                        try (OutputStream o = Files.newOutputStream(t)) {
                            byte[] zero = new byte[8192];
                            for (long left = n; left > 0; left -= zero.length) {
                                o.write(zero, 0, (int) Math.min(zero.length, left));
                            }
                        }
                    }
                }
            }
        }
    }

    /**
     * facts.json into dst, whose trees {@link #trees} wrote: per snapshot Flink's view, its
     * {@code _metadata} read where it is now or, when a trial in CLAIM mode deleted it since, from
     * the exported copy.
     */
    static void facts(Path dst, Path w, List<Scenarios.Snap> snaps, ObjectNode result) throws IOException {
        ObjectNode facts = Flink.JSON.createObjectNode();
        facts.put("scenario", result.get("name").asText());
        facts.put("flink", FlinkLine.version());
        facts.put("root", w.toUri().toString());
        ArrayNode arr = facts.putArray("snapshots");
        String rootUri = w.toUri().toString();
        String dstUri = dst.toUri().toString();
        for (Scenarios.Snap s : snaps) {
            Path copy = dst.resolve(w.relativize(s.dir).toString());
            if (!Files.exists(s.dir) && !Files.exists(copy)) {
                continue;
            }
            Path mdDir = Files.exists(s.dir.resolve("_metadata")) || !Files.exists(copy.resolve("_metadata")) ? s.dir : copy;
            ObjectNode o = arr.addObject();
            o.put("dir", w.relativize(s.dir).toString());
            o.put("id", s.id);
            o.put("savepoint", s.savepoint);
            o.put("metadata", s.hasMetadata);
            if (s.trial != null) {
                o.put("restorable", s.trial.path("restorable").asBoolean());
                if (s.trial.has("error")) {
                    o.put("error", s.trial.get("error").asText());
                }
                if (s.trial.has("restoredId")) {
                    o.put("restoredId", s.trial.get("restoredId").asLong());
                }
            }
            if (s.hasMetadata) {
                try (java.io.DataInputStream in = new java.io.DataInputStream(Files.newInputStream(mdDir.resolve("_metadata")))) {
                    in.readInt(); // the magic number
                    o.put("metadataVersion", in.readInt()); // what the _metadata header says, read here, not by Flink
                } catch (Exception e) {
                    o.put("metadataVersionError", e.toString());
                }
                try {
                    CheckpointMetadata md = References.load(mdDir);
                    ArrayNode refs = o.putArray("references");
                    for (String f : References.files(md)) {
                        refs.add(f.startsWith(rootUri) ? f.substring(rootUri.length())
                                : f.startsWith("file:" + w + "/") ? f.substring(("file:" + w + "/").length())
                                : f.startsWith(dstUri) ? f.substring(dstUri.length())
                                : f.startsWith("file:" + dst + "/") ? f.substring(("file:" + dst + "/").length()) : f);
                    }
                    o.set("operators", References.operators(md));
                } catch (Exception e) {
                    o.put("metadataError", Flink.causes(e));
                }
            }
        }
        o(facts, result);
        Flink.writeJson(dst.resolve("facts.json"), facts);
    }

    private static void o(ObjectNode facts, ObjectNode result) {
        facts.set("result", result.deepCopy());
    }
}
