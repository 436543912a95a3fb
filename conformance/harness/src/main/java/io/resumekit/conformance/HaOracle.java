package io.resumekit.conformance;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;

/**
 * Flink's own "what would I restore" oracle (CONFORMANCE.md §1.3, issue 21), for a scenario with
 * {@code "ha": true} (or {@code "ha": {"runTasks": true, "why": "..."}}): the runs' children used
 * ZooKeeper HA ({@link ZooKeeperHa}, a cluster id per run); after the last run's SIGKILL and the scenario's stages (so any
 * damage is applied) and the export, the dead JVM's ZooKeeper sessions are expired and a second child
 * ({@link HaRecoveryNode}) with the last run's {@code high-availability.*} settings and cluster id
 * recovers its job and restores the HA store's latest checkpoint. Recorded in the result's
 * {@code flink}: {@code ha_restored} ({@code {"id", "path"}} or null) and {@code ha} (the HA
 * store's checkpoint ids, the recovery's status, error, times and the verdict).
 *
 * <p>The judgment, for the first stage (a restart of the same job): resumekit's chosen checkpoint
 * must be the one Flink's HA recovery restored. Where they differ the scenario passes only with a
 * recorded why: Flink's HA recovery of its checkpoint failed (runTasks) and resumekit rejected that
 * checkpoint (the failure is the fact that proves the rejection), or the scenario's {@code ha.why}.
 */
final class HaOracle {
    private HaOracle() {}

    static void run(Path w, JsonNode sc, ZooKeeperHa zk, List<JsonNode> runFacts, ArrayNode stagesOut, ObjectNode flink)
            throws Exception {
        long t0 = System.nanoTime();
        JsonNode haSpec = sc.path("ha");
        boolean runTasks = haSpec.path("runTasks").asBoolean(false);
        ObjectNode ha = flink.putObject("ha");
        flink.putNull("ha_restored");
        int last = runFacts.size() - 1;
        String jobId = runFacts.get(last).get("jobId").asText();
        ha.put("jobId", jobId);
        ha.put("runTasks", runTasks);
        if (Files.exists(w.resolve("run-" + last).resolve("done"))) {
            throw new Scenarios.Mismatch("the HA oracle needs the last run to end in a crash, but run " + last + " ended by itself");
        }
        ha.put("expired_sessions", zk.expireSessions());
        ha.put("expired_after_seconds", Math.round((System.nanoTime() - t0) / 1e8) / 10.0);
        if (!zk.holdsJobGraph(jobId)) {
            throw new Scenarios.Mismatch("Flink's ZooKeeper JobGraphStore does not hold the killed job " + jobId
                    + ": nothing for an HA recovery to recover");
        }
        ArrayNode store = ha.putArray("store_checkpoints");
        zk.storedCheckpoints(jobId).forEach(store::add);
        // the same settings the killed child ran with (its spec), high-availability.* included
        JsonNode runSpec = Flink.JSON.readTree(w.resolve("run-" + last + ".json").toFile());
        Path control = w.resolve("ha-recovery");
        ObjectNode spec = Flink.JSON.createObjectNode();
        spec.put("control", control.toString());
        spec.set("settings", runSpec.get("settings"));
        spec.put("jobId", jobId);
        spec.put("runTasks", runTasks);
        Path specFile = w.resolve("ha-recovery.json");
        Flink.writeJson(specFile, spec);
        JsonNode facts;
        long tc = System.nanoTime();
        try (ChildJvm c = ChildJvm.start(HaRecoveryNode.class.getName(), specFile, control)) {
            try {
                c.awaitMarker("done", Duration.ofSeconds(150));
                c.awaitExit(Duration.ofSeconds(60));
            } catch (IllegalStateException e) {
                throw new Scenarios.Mismatch("HA recovery child: " + e.getMessage());
            }
        }
        facts = Flink.JSON.readTree(control.resolve("facts.json").toFile());
        ha.set("recovery", facts);
        ha.put("child_seconds", Math.round((System.nanoTime() - tc) / 1e8) / 10.0);
        ha.put("seconds", Math.round((System.nanoTime() - t0) / 1e8) / 10.0);
        if (facts.has("harnessError")) {
            throw new Scenarios.Mismatch("HA recovery child failed: " + facts.get("harnessError").asText());
        }
        Long haId = facts.has("restoredId") ? facts.get("restoredId").asLong() : null;
        String haPath = facts.path("restoredPath").asText(null);
        if (haId != null) {
            flink.putObject("ha_restored").put("id", haId).put("path", haPath);
        }
        String error = facts.path("error").asText(null);
        // resumekit's choice for the restart (the first stage)
        JsonNode rk = stagesOut.size() > 0 ? stagesOut.get(0).path("resumekit") : Flink.JSON.createObjectNode();
        Long rkId = rk.has("chosen_id") ? rk.get("chosen_id").asLong() : null;
        checkRecord(rk, ha, haId, error, rkId, outcome(w, jobId, haId));
        String rkPath = rk.path("chosen").asText(null);
        boolean same = haId == null ? rkPath == null
                : rkId != null && rkId.longValue() == haId.longValue() && samePath(rkPath, haPath);
        ha.put("agrees", same);
        if (same) {
            if (error != null) {
                throw new Scenarios.Mismatch("Flink's HA recovery restored resumekit's choice " + haId
                        + " and failed: " + error);
            }
            ha.put("verdict", "Flink's HA recovery restores " + (haId == null ? "nothing" : "checkpoint " + haId)
                    + ", resumekit's choice");
            return;
        }
        String rkOutcome = outcome(w, jobId, haId);
        ha.put("resumekit_outcome_of_ha_restored", rkOutcome);
        String why;
        if (error != null && haId != null && rkOutcome != null && !rkOutcome.startsWith("complete")) {
            why = "Flink's HA recovery restores checkpoint " + haId + " (the HA store's latest) and fails: " + error
                    + "; resumekit rejected it (" + rkOutcome + ") and chose " + (rkId == null ? "nothing" : rkId);
        } else if (haSpec.has("why")) {
            why = haSpec.get("why").asText() + " (Flink's HA recovery restores " + (haId == null ? "nothing" : haId)
                    + (error == null ? "" : " and fails: " + error) + "; resumekit chose " + (rkId == null ? "nothing" : rkId) + ")";
        } else {
            throw new Scenarios.Mismatch("Flink's HA recovery restores " + (haId == null ? "nothing" : "checkpoint " + haId + " (" + haPath + ")")
                    + (error == null ? "" : " and fails: " + error) + ", resumekit chose "
                    + (rkId == null ? "nothing" : "checkpoint " + rkId + " (" + rkPath + ")")
                    + (rkOutcome == null ? "" : "; resumekit's outcome for " + haId + ": " + rkOutcome));
        }
        ha.put("why", why);
        ha.put("verdict", "differs, explained");
    }

    /**
     * Flink's own record, as resumectl read it from this ZooKeeper and HA storage before the recovery
     * (the first stage's resolve, {@code --flink-zookeeper}): it must name the checkpoint the recovery
     * restored, and when the recovery failed, grade that checkpoint broken or gone (issue 32); when
     * resumekit chose another checkpoint, the record must name the disagreement, and where resumekit
     * found that checkpoint not complete ({@code rkOutcome}) the record's storage line must not call it
     * complete (F11: the recovery restores a checkpoint whose {@code _metadata} is truncated).
     */
    static void checkRecord(JsonNode rk, ObjectNode ha, Long haId, String error, Long rkId, String rkOutcome) throws Scenarios.Mismatch {
        JsonNode src = null;
        for (JsonNode s : rk.path("record").path("sources")) {
            if (s.path("kind").asText().equals("flink-ha")) {
                src = s;
            }
        }
        if (src == null) {
            throw new Scenarios.Mismatch("resumectl's decision has no flink-ha record (resolve --flink-zookeeper)");
        }
        Long recId = src.has("checkpoint_id") ? src.get("checkpoint_id").asLong() : null;
        ha.put("record_checkpoint", recId);
        ha.put("record_says", src.path("says").asText());
        ArrayNode codes = ha.putArray("record_warnings");
        boolean failureNamed = false;
        boolean disagreementNamed = false;
        for (JsonNode wn : src.path("warnings")) {
            String code = wn.path("code").asText();
            codes.add(code);
            failureNamed |= code.equals("record.broken") || code.equals("record.gone");
            disagreementNamed |= code.equals("record.broken") || code.equals("record.gone") || code.equals("record.older")
                    || code.equals("record.differs");
        }
        ha.put("record_storage", src.path("storage").asText());
        if (haId != null && (recId == null || recId.longValue() != haId.longValue())) {
            throw new Scenarios.Mismatch("resumectl's HA record names checkpoint " + recId + " (" + src.path("says").asText()
                    + "), Flink's HA recovery restored " + haId);
        }
        if (error != null && !failureNamed) {
            throw new Scenarios.Mismatch("Flink's HA recovery of checkpoint " + haId + " failed (" + error
                    + ") but resumectl's HA record did not say it would (" + codes + ")");
        }
        if (haId != null && (rkId == null || rkId.longValue() != haId.longValue())) {
            if (!disagreementNamed) {
                throw new Scenarios.Mismatch("Flink's HA recovery restores checkpoint " + haId + ", resumekit chose "
                        + (rkId == null ? "nothing" : rkId) + ", and resumectl's HA record names no disagreement (" + codes + ")");
            }
            if (rkOutcome != null && !rkOutcome.startsWith("complete") && !rkOutcome.equals("chosen")
                    && src.path("storage").asText().startsWith("complete")) {
                throw new Scenarios.Mismatch("resumekit rejected checkpoint " + haId + " (it chose " + (rkId == null ? "nothing" : rkId)
                        + ") but its HA record says storage finds it " + src.path("storage").asText());
            }
        }
        ha.put("record_agrees", true);
    }

    /**
     * Adds the oracle's facts to a scenario's export as {@code ha.json} ({@code ha_restored} and
     * {@code ha}); the trees were exported before the recovery ran.
     */
    static void export(Path dst, ObjectNode flink) throws java.io.IOException {
        if (!Files.isDirectory(dst)) {
            return;
        }
        ObjectNode o = Flink.JSON.createObjectNode();
        o.set("ha_restored", flink.path("ha_restored"));
        o.set("ha", flink.path("ha"));
        Flink.writeJson(dst.resolve("ha.json"), o);
    }

    /** Both URIs name the same directory (file:/x and file:///x/ alike). */
    static boolean samePath(String a, String b) {
        if (a == null || b == null) {
            return a == b;
        }
        return Paths.get(URI.create(a)).normalize().equals(Paths.get(URI.create(b)).normalize());
    }

    /**
     * resumekit's outcome for checkpoint {@code id} of {@code jobId} in the first stage's decision
     * (resolve-0.json): "chosen", or a considered candidate's outcome and why; null if not found.
     */
    static String outcome(Path w, String jobId, Long id) throws Exception {
        if (id == null) {
            return null;
        }
        Path f = w.resolve("resolve-0.json");
        if (!Files.exists(f)) {
            return null;
        }
        JsonNode pos = Flink.JSON.readTree(f.toFile()).path("chosen").path("position");
        if (pos.path("checkpoint_id").asLong(-1) == id && pos.path("job_id").asText().equals(jobId)) {
            return "chosen";
        }
        for (JsonNode c : pos.path("considered")) {
            if (c.path("checkpoint_id").asLong(-1) == id && c.path("job_id").asText().equals(jobId)) {
                return c.path("outcome").asText() + ": " + c.path("why").asText();
            }
        }
        return null;
    }
}
