package io.resumekit.conformance;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * The committed output of all runs (journal files, deduplicated by name: a restored committable
 * committed again is the same file), and the judgement of a guarantee against it.
 */
final class Output {
    /** One output line: which run wrote it (run index, or Integer.MAX_VALUE for the new job). */
    static final class Copy {
        int run;
        long id;
        int key;
        long count;
        long epoch;
    }

    final Map<Long, List<Copy>> byId = new TreeMap<>();

    static Output read(List<Path> dirs) throws IOException {
        Output o = new Output();
        Set<String> seen = new HashSet<>();
        for (Path d : dirs) {
            if (!Files.isDirectory(d)) {
                continue;
            }
            List<Path> files;
            try (Stream<Path> s = Files.list(d)) {
                files = s.sorted().toList();
            }
            for (Path f : files) {
                String n = f.getFileName().toString();
                if (n.startsWith(".") || !seen.add(n)) {
                    continue;
                }
                String tag = n.substring(0, n.indexOf('-'));
                int run = tag.startsWith("run") ? Integer.parseInt(tag.substring(3)) : Integer.MAX_VALUE;
                for (String line : Files.readAllLines(f)) {
                    if (line.isEmpty()) {
                        continue;
                    }
                    String[] p = line.split(",");
                    Copy c = new Copy();
                    c.run = run;
                    c.id = Long.parseLong(p[0]);
                    c.key = Integer.parseInt(p[1]);
                    c.count = Long.parseLong(p[2]);
                    c.epoch = Long.parseLong(p[3]);
                    o.byId.computeIfAbsent(c.id, k -> new ArrayList<>()).add(c);
                }
            }
        }
        return o;
    }

    /** The input ids 0..records-1 that no run delivered. */
    java.util.TreeSet<Long> missing(long records) {
        java.util.TreeSet<Long> m = new java.util.TreeSet<>();
        for (long id = 0; id < records; id++) {
            if (!byId.containsKey(id)) {
                m.add(id);
            }
        }
        return m;
    }

    /**
     * Judges the output: restorePoints are the runs' restored checkpoint ids (null: fresh), finalRestore
     * the new job's. A copy from an earlier run whose epoch is above a later run's restore point is
     * superseded (that run re-emits it): counted as duplicated, not as a second delivery.
     */
    ObjectNode judge(long records, int keys, List<Long> restorePoints, Long finalRestore, String grade) {
        return judge(records, keys, restorePoints, finalRestore, null, grade);
    }

    /**
     * As above, with finalRun the run whose checkpoint the new job restores (null: not known, or a
     * savepoint): the output of every later run is of a branch the restore abandons (a later run
     * restored from an older snapshot of that run, its own checkpoints not restorable), so all of
     * it is superseded — counted as duplicated by the new job, not as a second delivery.
     */
    ObjectNode judge(long records, int keys, List<Long> restorePoints, Long finalRestore, Integer finalRun, String grade) {
        ObjectNode v = Flink.JSON.createObjectNode();
        long lost = 0;
        long duplicated = 0;
        long byNewJob = 0; // of duplicated: superseded by the new job's restore (the rest by the runs' own restores)
        long twice = 0;
        TreeSet<Long> lostIds = new TreeSet<>();
        Map<Integer, List<Long>> effectiveCounts = new HashMap<>();
        Map<Integer, List<Long>> finalCounts = new HashMap<>();
        for (long id = 0; id < records; id++) {
            List<Copy> cs = byId.getOrDefault(id, List.of());
            if (cs.isEmpty()) {
                lost++;
                lostIds.add(id);
                continue;
            }
            List<Copy> sorted = new ArrayList<>(cs);
            sorted.sort((a, b) -> Integer.compare(a.run, b.run));
            List<Copy> eff = new ArrayList<>();
            for (Copy c : sorted) {
                if (finalRun != null && c.run != Integer.MAX_VALUE && c.run > finalRun) {
                    duplicated++;
                    byNewJob++;
                    continue;
                }
                Long rp = c.run == Integer.MAX_VALUE ? finalRestore
                        : (c.run < restorePoints.size() ? restorePoints.get(c.run) : null);
                int before = eff.size();
                eff.removeIf(e -> e.run < c.run && rp != null && e.epoch > rp);
                duplicated += before - eff.size();
                if (c.run == Integer.MAX_VALUE) {
                    byNewJob += before - eff.size();
                }
                eff.add(c);
            }
            if (eff.size() > 1) {
                twice += eff.size() - 1;
            }
            for (Copy c : eff) {
                effectiveCounts.computeIfAbsent(c.key, k -> new ArrayList<>()).add(c.count);
                if (c.run == Integer.MAX_VALUE) {
                    finalCounts.computeIfAbsent(c.key, k -> new ArrayList<>()).add(c.count);
                }
            }
        }
        for (List<Copy> cs : byId.values()) {
            if (cs.get(0).id >= records) {
                v.put("mismatch", "output has id " + cs.get(0).id + " beyond the input");
            }
        }
        v.put("lost", lost);
        v.put("duplicated", duplicated);
        v.put("duplicated_by_new_job", byNewJob);
        v.put("delivered_twice", twice);
        if (!lostIds.isEmpty()) {
            v.put("lost_first", lostIds.first());
            v.put("lost_last", lostIds.last());
        }
        boolean continued = true;
        for (List<Long> counts : effectiveCounts.values()) {
            counts.sort(Long::compare);
            for (int i = 0; i < counts.size(); i++) {
                if (counts.get(i) != i + 1) {
                    continued = false;
                }
            }
        }
        boolean restarted = true;
        for (List<Long> counts : finalCounts.values()) {
            counts.sort(Long::compare);
            if (!counts.isEmpty() && counts.get(0) != 1) {
                restarted = false;
            }
        }
        v.put("state_continued", continued);
        switch (grade) {
            case "exactly-once":
                if (lost > 0 || twice > 0) {
                    v.put("mismatch", "exactly-once: " + lost + " inputs missing, " + twice + " delivered twice");
                } else if (!continued) {
                    v.put("mismatch", "exactly-once: every input once but the counts did not continue (state not restored)");
                }
                break;
            case "exact-input":
                if (lost > 0 || twice > 0) {
                    v.put("mismatch", "exact-input: " + lost + " inputs missing, " + twice + " delivered twice");
                } else if (!restarted) {
                    v.put("mismatch", "exact-input: the new job's counts did not restart at 1");
                }
                break;
            case "data-loss":
                // the caller compares the missing inputs with the range resumekit reported
                break;
            case "replay":
                if (lost > 0) {
                    v.put("mismatch", "replay: " + lost + " inputs missing");
                }
                break;
            default:
                v.put("grade_unchecked", grade);
        }
        return v;
    }
}
