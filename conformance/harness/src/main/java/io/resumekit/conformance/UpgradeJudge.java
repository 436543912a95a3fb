package io.resumekit.conformance;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The judge of snapshots written on one Flink line and restored on the other (the upgrade scenarios
 * U1–U4: Flink 1.20 savepoints restored by Flink 2.x; the rollback R1: a Flink 2.x checkpoint offered
 * to Flink 1.20), after {@link Scenarios}' trials of every snapshot on the harness's line. A stage asks
 * for it with either key:
 *
 * <ul>
 *   <li>{@code "refusedWith": TEXT} — some snapshot's trial fails with an error containing TEXT (Flink's
 *       own words, e.g. "Unrecognized checkpoint version number: 6"); resumekit chose none of them and
 *       quotes TEXT for each.
 *   <li>{@code "perSnapshot": true} — resumectl resolve (the stage's arguments, its locations replaced by
 *       a copy of one snapshot) for each snapshot alone, beside Flink's trial of it: a restore Flink
 *       accepts is one resumekit offers, one Flink refuses is one resumekit refuses naming the operator
 *       Flink's error names; per operator, the codes of resumekit's version warnings
 *       (flink.major-upgrade, flink.upgrade-drops-state, flink.kryo-state) and what Flink did are recorded
 *       in {@code per_snapshot}.
 * </ul>
 */
final class UpgradeJudge {
    private UpgradeJudge() {}

    /** The warning codes that speak of the version the snapshot crosses to. */
    static final Set<String> VERSION_CODES = Set.of("flink.major-upgrade", "flink.upgrade-drops-state", "flink.kryo-state",
            "flink.older-than-unreadable");

    /** An operator id as Flink prints it, also inside a task name (SourceOperator_<id>_(1/2)). */
    static final Pattern OPERATOR_ID = Pattern.compile("(?<![0-9a-f])[0-9a-f]{32}(?![0-9a-f])");

    /** Whether the stage asks for this judge. */
    static boolean wanted(JsonNode stage) {
        return stage.has("refusedWith") || stage.path("perSnapshot").asBoolean(false);
    }

    static void judge(Scenarios s, Path w, JsonNode stage, int si, List<Scenarios.Snap> snaps, JsonNode dec, ObjectNode fl)
            throws Exception {
        List<String> problems = new ArrayList<>();
        if (stage.has("refusedWith")) {
            refusedWith(stage.get("refusedWith").asText(), snaps, dec, fl, problems);
        }
        if (stage.path("perSnapshot").asBoolean(false)) {
            perSnapshot(s, w, stage, si, snaps, fl, problems);
        }
        if (!problems.isEmpty()) {
            throw new Scenarios.Mismatch(String.join("; ", problems));
        }
    }

    static void refusedWith(String text, List<Scenarios.Snap> snaps, JsonNode dec, ObjectNode fl, List<String> problems) {
        ArrayNode out = fl.putArray("refused_with");
        String chosen = dec.path("chosen").path("position").path("path").asText("");
        String all = dec.toString();
        for (Scenarios.Snap sn : snaps) {
            if (sn.trial == null || sn.trial.path("restorable").asBoolean() || !sn.trial.path("error").asText().contains(text)) {
                continue;
            }
            String name = sn.dir.getFileName().toString();
            boolean quoted = quotes(all, name, text);
            out.addObject().put("path", sn.uri()).put("resumekit_quotes_it", quoted);
            if (!chosen.isEmpty() && Scenarios.find(List.of(sn), chosen) != null) {
                problems.add("resumekit chose " + sn.uri() + ", which Flink " + FlinkLine.version() + " refuses: " + text);
            }
            if (!quoted) {
                problems.add("Flink " + FlinkLine.version() + " refuses " + sn.uri() + " with \"" + text
                        + "\"; resumekit's decision does not say so of " + name);
            }
        }
        if (out.isEmpty()) {
            problems.add("no snapshot's trial on Flink " + FlinkLine.version() + " failed with \"" + text + "\"");
        }
    }

    /** Whether some string of the decision names the snapshot and quotes text (JSON-escaped quotes allowed). */
    static boolean quotes(String decision, String snapshotName, String text) {
        for (String part : decision.split("\",\"|\"\\]|\\[\"")) {
            if (part.contains(snapshotName) && part.contains(text)) {
                return true;
            }
        }
        return false;
    }

    static void perSnapshot(Scenarios s, Path w, JsonNode stage, int si, List<Scenarios.Snap> snaps, ObjectNode fl,
                            List<String> problems) throws Exception {
        List<String> base = new ArrayList<>();
        JsonNode args = stage.get("resolve");
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i).asText();
            if (a.equals("--flink-checkpoints") || a.equals("--flink-savepoints") || a.equals("--flink-job-id")) {
                i++;
                continue;
            }
            base.add(PaimonDamage.subst(w, a));
        }
        ArrayNode out = fl.putArray("per_snapshot");
        int k = 0;
        for (Scenarios.Snap sn : snaps) {
            if (!sn.hasMetadata || sn.trial == null) {
                continue;
            }
            Path alone = w.resolve("alone-" + si + "-" + (k++));
            Scenarios.deleteTree(alone);
            List<String> cmd = new ArrayList<>(List.of(s.resumectl.toString(), "resolve"));
            Path copy;
            if (sn.savepoint) {
                copy = alone.resolve("sp").resolve(sn.dir.getFileName().toString());
                cmd.add("--flink-savepoints");
                cmd.add(alone.resolve("sp").toString());
            } else {
                copy = alone.resolve("ck").resolve(sn.jobId).resolve(sn.dir.getFileName().toString());
                cmd.add("--flink-checkpoints");
                cmd.add(alone.resolve("ck").toString());
                // the copy's absolute references (shared/, other checkpoints' files) stay at the old root
                Path root = sn.dir.getParent().getParent();
                cmd.add("--flink-extra-root");
                cmd.add(Scenarios.flinkUri(root) + "/=" + root);
            }
            Scenarios.copyTree(sn.dir, copy);
            cmd.addAll(base);
            cmd.add("--json");
            Path rout = alone.resolve("resolve.json");
            Process p = new ProcessBuilder(cmd).redirectOutput(rout.toFile()).redirectError(alone.resolve("resolve.err").toFile()).start();
            if (!p.waitFor(90, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                problems.add("resumectl resolve of " + sn.uri() + " alone did not end within 90 s");
                continue;
            }
            JsonNode dec;
            try {
                dec = Flink.JSON.readTree(rout.toFile());
            } catch (Exception e) {
                problems.add("resumectl resolve of " + sn.uri() + " alone (exit " + p.exitValue() + ") printed no JSON: "
                        + Files.readString(alone.resolve("resolve.err")).trim());
                continue;
            }
            ObjectNode o = out.addObject();
            o.put("path", sn.uri());
            o.put("savepoint", sn.savepoint);
            ObjectNode fo = o.putObject("flink");
            boolean flinkOk = sn.trial.path("restorable").asBoolean();
            fo.put("restores", flinkOk);
            String err = sn.trial.path("error").asText("");
            if (!flinkOk) {
                fo.put("error", err);
            }
            // Flink's own reading of the keyed state meta info: the Kryo-serialized states per operator
            TreeMap<String, TreeSet<String>> kryo;
            try {
                kryo = StateTypes.kryoKeyed(sn.dir);
            } catch (Exception e) {
                // a _metadata this Flink cannot read (a rollback's v6): no meta info to compare
                kryo = new TreeMap<>();
                fo.put("metadata_unreadable", Flink.causes(e));
            }
            fo.set("kryo_states", Flink.JSON.valueToTree(kryo));
            ObjectNode ro = o.putObject("resumekit");
            ro.put("exit", p.exitValue());
            JsonNode restore = restoreCandidate(dec, copy.getFileName().toString());
            ro.put("offers_restore", restore != null);
            if (restore != null) {
                ro.put("guarantee", restore.path("guarantee").asText());
            }
            JsonNode chosen = dec.path("chosen");
            ro.put("chosen_kind", chosen.path("kind").asText(null));
            ro.put("chosen_guarantee", chosen.path("guarantee").asText(null));
            // per operator: the version warnings that name it (of the restore candidate, else the chosen one)
            TreeMap<String, TreeSet<String>> ops = new TreeMap<>();
            JsonNode warned = restore != null ? restore : chosen;
            for (JsonNode wn : warned.path("warnings")) {
                String code = wn.path("code").asText();
                if (!VERSION_CODES.contains(code)) {
                    continue;
                }
                Matcher m = OPERATOR_ID.matcher(wn.path("text").asText());
                boolean any = false;
                while (m.find()) {
                    if (m.group().equals(sn.jobId)) {
                        continue; // "chk-3 of job <id>": a job id, not an operator
                    }
                    ops.computeIfAbsent(m.group(), x -> new TreeSet<>()).add(code);
                    any = true;
                }
                if (!any) {
                    ops.computeIfAbsent("*", x -> new TreeSet<>()).add(code);
                }
            }
            ro.set("operators", Flink.JSON.valueToTree(ops));
            String label = sn.uri() + " (Flink " + FlinkLine.version() + ")";
            if (upgrade(dec, restore)) {
                // operator by operator: resumekit's flink.kryo-state names the operators whose keyed state
                // Flink's reader finds Kryo-serialized, no more, no fewer
                TreeSet<String> rkKryo = new TreeSet<>();
                ops.forEach((op, codes) -> {
                    if (codes.contains("flink.kryo-state")) {
                        rkKryo.add(op);
                    }
                });
                // an operator Flink's reader cannot read (its serializer's class gone) is not judged here
                TreeSet<String> flinkKryo = new TreeSet<>();
                kryo.forEach((op, states) -> {
                    if (states.stream().anyMatch(x -> x.startsWith(StateTypes.UNREADABLE))) {
                        rkKryo.remove(op);
                    } else {
                        flinkKryo.add(op);
                    }
                });
                if (!rkKryo.equals(flinkKryo)) {
                    problems.add(label + ": Flink reads Kryo-serialized keyed state in operators " + kryo
                            + ", resumekit's flink.kryo-state names " + rkKryo);
                }
                // state resumekit calls dropped (flink.upgrade-drops-state) must be state Flink skipped
                // (its "Skipping ... state for operator" lines, a restore with --allowNonRestoredState)
                TreeSet<String> skipped = new TreeSet<>();
                for (JsonNode l : sn.trial.path("skipped")) {
                    Matcher m = OPERATOR_ID.matcher(l.asText());
                    if (!l.asText().startsWith("Skipping empty") && m.find()) {
                        skipped.add(m.group());
                    }
                }
                fo.set("skipped_with_state", Flink.JSON.valueToTree(skipped));
                TreeSet<String> rkDrops = new TreeSet<>();
                ops.forEach((op, codes) -> {
                    if (codes.contains("flink.upgrade-drops-state")) {
                        rkDrops.add(op);
                    }
                });
                if (flinkOk && !skipped.containsAll(rkDrops)) {
                    problems.add(label + ": resumekit calls the state of operators " + rkDrops + " dropped, Flink skipped " + skipped);
                }
            }
            if (flinkOk && restore == null) {
                problems.add(label + ": Flink restores it, resumekit offers no restore of it alone: " + reasons(dec));
            } else if (!flinkOk && restore != null) {
                problems.add(label + ": Flink refuses it (" + err + "), resumekit offers its restore " + restore.path("guarantee").asText());
            } else if (!flinkOk && err.contains("FileNotFoundException")) {
                // a file gone (e.g. a subsumed checkpoint the killed job was deleting): resumekit must call
                // it broken for missing files (which one it names first is the main judge's business)
                if (!dec.toString().contains("missing")) {
                    problems.add(label + ": Flink fails on a missing file (" + err + "); resumekit's refusal names none: " + reasons(dec));
                }
            } else if (!flinkOk) {
                Matcher m = OPERATOR_ID.matcher(err);
                String named = m.find() ? m.group() : null;
                fo.put("refused_operator", named);
                if (named != null && !dec.toString().contains(named)) {
                    problems.add(label + ": Flink refuses operator " + named + "; resumekit's refusal does not name it: " + reasons(dec));
                }
                // Flink's own words: some cause of its error (without its exception type) is quoted
                String quoted = quotedCause(err, dec.toString());
                fo.put("cause_quoted_by_resumekit", quoted);
                if (quoted == null) {
                    problems.add(label + ": resumekit's refusal quotes no cause of Flink's error (" + err + "): " + reasons(dec));
                }
            }
        }
    }

    /**
     * The first cause of Flink's error (Flink.causes: "Type: message <- Type: message") whose message,
     * without a trailing period, appears in the decision; null when none does.
     */
    static String quotedCause(String err, String decision) {
        for (String c : err.split(" <- ")) {
            int colon = c.indexOf(": ");
            String msg = (colon < 0 ? c : c.substring(colon + 2)).trim();
            if (msg.endsWith(".")) {
                msg = msg.substring(0, msg.length() - 1);
            }
            if (msg.length() >= 16 && decision.contains(msg.replace("\"", "\\\""))) {
                return msg;
            }
            if (msg.length() >= 16 && decision.contains(msg)) {
                return msg;
            }
        }
        return null;
    }

    /** Whether resumekit judged the restore as a major upgrade (its flink.major-upgrade warning). */
    static boolean upgrade(JsonNode dec, JsonNode restore) {
        JsonNode c = restore != null ? restore : dec.path("chosen");
        for (JsonNode wn : c.path("warnings")) {
            if (wn.path("code").asText().equals("flink.major-upgrade")) {
                return true;
            }
        }
        return false;
    }

    /** The decision's candidate restoring the snapshot dir named name (not a salvage), or null. */
    static JsonNode restoreCandidate(JsonNode dec, String name) {
        List<JsonNode> cands = new ArrayList<>();
        if (dec.path("chosen").isObject()) {
            cands.add(dec.get("chosen"));
        }
        for (JsonNode c : dec.path("considered")) {
            if (c.path("candidate").isObject()) {
                cands.add(c.get("candidate"));
            }
        }
        for (JsonNode c : cands) {
            String path = c.path("position").path("path").asText("");
            if (!c.path("kind").asText().equals("flink-salvage") && (path.endsWith("/" + name) || path.endsWith("/" + name + "/"))) {
                return c;
            }
        }
        return null;
    }

    static String reasons(JsonNode dec) {
        List<String> out = new ArrayList<>();
        for (JsonNode c : dec.path("considered")) {
            out.add(c.path("resolver").asText() + " " + c.path("verdict").asText() + ": " + c.path("why").asText(c.path("error").asText("")));
        }
        return String.join(" | ", out);
    }
}
