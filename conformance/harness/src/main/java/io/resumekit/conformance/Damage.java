package io.resumekit.conformance;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;

/** Damage ops that pick their victim from what Flink's own reader says a snapshot references. */
final class Damage {
    private Damage() {}

    /**
     * Deletes one file the newest completed checkpoint references whose URI contains {@code contains},
     * preferring one the checkpoint before it does not reference (so the older one may still restore;
     * Flink's trials say whether it does). Records the victim and which other checkpoints referenced it.
     */
    static ObjectNode deleteFileOfNewest(String contains, List<Scenarios.Snap> snaps) throws Exception {
        List<Scenarios.Snap> cs = new ArrayList<>();
        for (Scenarios.Snap s : snaps) {
            if (!s.savepoint && s.hasMetadata) {
                cs.add(s);
            }
        }
        cs.sort(Comparator.comparingLong((Scenarios.Snap s) -> s.id));
        if (cs.isEmpty()) {
            throw new Scenarios.Mismatch("damage deleteFileOfNewest: no completed checkpoint");
        }
        Scenarios.Snap newest = cs.get(cs.size() - 1);
        TreeSet<String> refs = References.files(References.load(newest.dir));
        TreeSet<String> before = cs.size() > 1 ? References.files(References.load(cs.get(cs.size() - 2).dir)) : new TreeSet<>();
        String victim = null;
        for (String f : refs) {
            if (f.contains(contains) && !before.contains(f)) {
                victim = f;
                break;
            }
        }
        if (victim == null) {
            for (String f : refs) {
                if (f.contains(contains)) {
                    victim = f;
                    break;
                }
            }
        }
        if (victim == null) {
            throw new Scenarios.Mismatch("damage deleteFileOfNewest: " + newest.dir + " references no file containing "
                    + contains + ": " + refs);
        }
        ObjectNode o = Flink.JSON.createObjectNode();
        ArrayNode alsoIn = o.putArray("also_referenced_by");
        for (Scenarios.Snap s : cs) {
            if (s != newest && References.files(References.load(s.dir)).contains(victim)) {
                alsoIn.add(s.uri());
            }
        }
        Path p = Paths.get(java.net.URI.create(victim));
        o.put("checkpoint", newest.uri());
        o.put("size", Files.size(p));
        Files.delete(p);
        o.put("deleted", victim);
        return o;
    }
}
