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
        cs.sort(Scenarios.LINEAGE);
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

    /**
     * Cuts a merged file (file merging) in the middle of a segment that the newest completed checkpoint
     * references and the one before does not, preferring a file the one before also has segments in,
     * below none of them: the newest's state is short, the older's intact (Flink's trials say whether
     * that is what restores).
     */
    static ObjectNode truncateSegmentOfNewest(String contains, List<Scenarios.Snap> snaps) throws Exception {
        List<Scenarios.Snap> cs = new ArrayList<>();
        for (Scenarios.Snap s : snaps) {
            if (!s.savepoint && s.hasMetadata) {
                cs.add(s);
            }
        }
        cs.sort(Scenarios.LINEAGE);
        if (cs.isEmpty()) {
            throw new Scenarios.Mismatch("damage truncateSegmentOfNewest: no completed checkpoint");
        }
        Scenarios.Snap newest = cs.get(cs.size() - 1);
        List<References.Segment> own = References.segments(References.load(newest.dir));
        List<References.Segment> older = new ArrayList<>();
        for (Scenarios.Snap s : cs) {
            if (s != newest) {
                older.addAll(References.segments(References.load(s.dir)));
            }
        }
        References.Segment pick = null;
        long cut = -1;
        boolean sharedFile = false;
        for (References.Segment g : own) {
            if (!g.file.contains(contains) || g.size < 2
                    || older.stream().anyMatch(o -> o.file.equals(g.file) && o.start == g.start)) {
                continue;
            }
            long olderEnd = 0;
            boolean inOlder = false;
            for (References.Segment o : older) {
                if (o.file.equals(g.file)) {
                    inOlder = true;
                    olderEnd = Math.max(olderEnd, o.start + o.size);
                }
            }
            long at = g.start + g.size / 2;
            if (at < olderEnd) {
                continue; // cutting here would cut an older checkpoint's segment too
            }
            if (pick == null || (inOlder && !sharedFile)) {
                pick = g;
                cut = at;
                sharedFile = inOlder;
            }
        }
        if (pick == null) {
            throw new Scenarios.Mismatch("damage truncateSegmentOfNewest: " + newest.dir + " has no segment of its own in a file "
                    + "containing " + contains + " that can be cut above every older segment: " + own.size() + " segments");
        }
        Path p = Paths.get(java.net.URI.create(pick.file));
        ObjectNode o = Flink.JSON.createObjectNode();
        o.put("checkpoint", newest.uri());
        o.put("truncated_file", pick.file);
        o.put("segment_start", pick.start);
        o.put("segment_size", pick.size);
        o.put("from", Files.size(p));
        o.put("to", cut);
        o.put("file_has_older_segments", sharedFile);
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(p, java.nio.file.StandardOpenOption.WRITE)) {
            ch.truncate(cut);
        }
        return o;
    }

    /**
     * For each file a damage op deleted from (or cut in) a checkpoint: when Flink's trial of that
     * checkpoint fails naming the file, resumekit's answer (the JSON document and stderr) must name it too.
     */
    static void checkNamed(ArrayNode damage, List<Scenarios.Snap> snaps, String resolveOut, ObjectNode fl) throws Scenarios.Mismatch {
        for (org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode d : damage) {
            if (!(d.has("deleted") || d.has("truncated_file")) || !d.has("checkpoint")) {
                continue;
            }
            String victim = d.has("deleted") ? d.get("deleted").asText() : d.get("truncated_file").asText();
            String base = victim.substring(victim.lastIndexOf('/') + 1);
            Scenarios.Snap sn = Scenarios.find(snaps, d.get("checkpoint").asText());
            if (sn == null || sn.trial == null || sn.trial.path("restorable").asBoolean()
                    || !sn.trial.path("error").asText().contains(base)) {
                continue; // Flink does not say the file is what fails the restore
            }
            if (!resolveOut.contains(base)) {
                throw new Scenarios.Mismatch("Flink's restore of " + sn.uri() + " fails on the deleted " + victim
                        + ", and resumekit's answer does not name it");
            }
            (fl.has("named_by_both") ? (ArrayNode) fl.get("named_by_both") : fl.putArray("named_by_both")).add(victim);
        }
    }

    /**
     * The files the chosen snapshot references as Flink's own reader lists them, by place, against
     * what resumekit says it checked ({@code position.referenced_files}, {@code checked_files}).
     */
    static void compareReferences(Scenarios.Snap chosen, org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode position,
                                  ObjectNode fl) throws Exception {
        TreeSet<String> refs = References.files(References.load(chosen.dir));
        ObjectNode by = fl.putObject("referenced_files_by_place");
        for (String f : refs) {
            String place = f.contains("/taskowned/") ? "taskowned" : f.contains("/shared/") ? "shared"
                    : f.contains("/dstl/") ? "dstl" : f.contains("/chk-") ? "exclusive" : "other";
            by.put(place, by.path(place).asInt(0) + 1);
        }
        fl.put("referenced_files", refs.size());
        long rk = position.path("referenced_files").asLong(-1);
        long checked = position.path("checked_files").asLong(-1);
        if (rk != refs.size() || checked != refs.size() || !position.path("verified").asBoolean(false)) {
            throw new Scenarios.Mismatch("Flink's reader lists " + refs.size() + " files referenced by " + chosen.uri() + " " + by
                    + "; resumekit referenced " + rk + ", checked " + checked + ", verified " + position.path("verified"));
        }
    }
}
