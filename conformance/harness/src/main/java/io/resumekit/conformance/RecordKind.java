package io.resumekit.conformance;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Flink's own record against a live or cleanly ended JobManager (issue 32), the {@code "record"} kind:
 * a {@link RecordNode} child runs the file's {@code jobs} one after another in one MiniCluster; then
 * {@code resumectl resolve} (the file's {@code resolve}, {@code ${rest}} the child's REST URL,
 * {@code ${jrs}} its JobResultStore dir) decides with that record beside storage, and the decision's
 * {@code record} section is judged against what Flink itself answers; {@code resumectl flink record} (the
 * file's {@code flinkRecord}) must then read the same record alone:
 *
 * <ul>
 *   <li>{@code "record": "rest"}: the last job holds (a checkpoint in progress, the job RUNNING) while
 *   resumectl asks its REST API ({@code --flink-rest}); the harness asks the same endpoints
 *   ({@code /jobs/overview}, {@code /jobs/:id/checkpoints}, kept as {@code rest/*.json}). The record must
 *   say the job still runs and name the latest completed checkpoint Flink reports, which storage must
 *   hold as the newest complete checkpoint of the job and resumekit must choose; the REST answers'
 *   restored and savepoint entries must be the snapshots the child restored and took.</li>
 *   <li>{@code "record": "job-result-store"}: with ZooKeeper HA and {@code job-result-store.storage-path}
 *   (FileSystemJobResultStore), the job ends by stop-with-savepoint and its clean entry is written; the
 *   record ({@code --flink-job-result-store}) must say it finished cleanly, and resumekit must choose that
 *   savepoint.</li>
 * </ul>
 *
 * No trials and no launch: what is judged is the record, read from a real JobManager and store.
 */
final class RecordKind extends ScenarioKind {
    static final String NAME = "record";

    @Override
    String name() {
        return NAME;
    }

    @Override
    boolean alone() {
        return true;
    }

    @Override
    void vars(Scenarios s, Path w, String scenario, Map<String, String> vars) {
        vars.put("${jrs}", w.resolve("jrs").toString());
    }

    @Override
    void runAlone(Scenarios s, Path w, JsonNode sc, ObjectNode result) throws Exception {
        String what = sc.path("record").asText();
        if (!what.equals("rest") && !what.equals("job-result-store")) {
            throw new IllegalArgumentException(sc.path("name").asText() + ": \"record\" must be rest or job-result-store, not " + what);
        }
        String name = sc.get("name").asText();
        ObjectNode flink = result.putObject("flink");
        ObjectNode settings = sc.path("settings").isObject() ? (ObjectNode) sc.get("settings").deepCopy() : Flink.JSON.createObjectNode();
        settings.put("execution.checkpointing.dir", Scenarios.flinkUri(w.resolve("ck")));
        settings.put("execution.checkpointing.savepoint-dir", Scenarios.flinkUri(w.resolve("sp")));
        Path control = w.resolve("run-0");
        ObjectNode spec = Flink.JSON.createObjectNode();
        spec.put("control", control.toString());
        spec.set("job", sc.get("job"));
        spec.set("variant", sc.path("variant").isObject() ? sc.get("variant") : Flink.JSON.createObjectNode());
        spec.put("journal", w.resolve("journal").toString());
        spec.put("savepointDir", Scenarios.flinkUri(w.resolve("sp")));
        ArrayNode jobs = spec.putArray("jobs");
        int i = 0;
        for (JsonNode j : sc.get("jobs")) {
            ObjectNode jo = jobs.addObject();
            jo.put("jobId", Scenarios.jobId(name, i++));
            jo.set("actions", j.get("actions"));
            if (j.has("restoreFrom")) {
                jo.set("restoreFrom", j.get("restoreFrom"));
            }
        }
        ZooKeeperHa zk = null;
        ObjectNode out = Flink.JSON.createObjectNode();
        try {
            if (what.equals("job-result-store")) {
                // FileSystemJobResultStore is an HA service: without HA a MiniCluster keeps job results in memory
                zk = ZooKeeperHa.start(w.resolve("zk"));
                settings.setAll(zk.settings(w.resolve("ha"), name));
                settings.put("job-result-store.storage-path", Scenarios.flinkUri(w.resolve("jrs")));
                // keep the clean entry (Flink deletes it on commit by default): it is what is read
                settings.put("job-result-store.delete-on-commit", "false");
                spec.put("jobResultStoreDir", w.resolve("jrs").toString());
            }
            spec.set("settings", settings);
            Path specFile = w.resolve("run-0.json");
            Flink.writeJson(specFile, spec);
            try (ChildJvm c = ChildJvm.start(RecordNode.class.getName(), specFile, control)) {
                String marker = what.equals("rest") ? "holding" : "done";
                try {
                    c.awaitMarker(marker, Duration.ofSeconds(150));
                } catch (IllegalStateException e) {
                    throw new Scenarios.Mismatch("record child: " + e.getMessage());
                }
                JsonNode facts = Flink.JSON.readTree(control.resolve("facts.json").toFile());
                flink.set("run", facts);
                if (facts.has("error")) {
                    throw new Scenarios.Mismatch("record child failed in Flink: " + facts.get("error").asText());
                }
                if (what.equals("rest")) {
                    rest(s, w, sc, facts, out, flink);
                } else {
                    c.awaitExit(Duration.ofSeconds(60));
                    jobResultStore(s, w, sc, facts, out, flink);
                }
            }
            result.put("passed", true);
        } catch (Scenarios.Mismatch m) {
            result.put("passed", false);
            result.put("why", m.getMessage());
        } finally {
            if (zk != null) {
                zk.close();
            }
            result.set("resumekit", out);
            if (s.exportDir != null) {
                export(s.exportDir.resolve(name), w, result);
            }
        }
    }

    /** The REST record of the held job: Flink's answers, resumectl's record, storage. */
    static void rest(Scenarios s, Path w, JsonNode sc, JsonNode facts, ObjectNode rk, ObjectNode flink) throws Exception {
        String url = facts.get("rest").asText().replaceAll("/+$", "");
        JsonNode jobs = facts.get("jobs");
        JsonNode held = jobs.get(jobs.size() - 1);
        String jobId = held.get("jobId").asText();
        Path dir = w.resolve("rest");
        Files.createDirectories(dir);
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        JsonNode overview = get(http, url + "/jobs/overview", dir.resolve("overview-running.json"));
        JsonNode checkpoints = get(http, url + "/jobs/" + jobId + "/checkpoints", dir.resolve("checkpoints-running.json"));
        for (int i = 0; i < jobs.size() - 1; i++) {
            // a job that ended (stop-with-savepoint) as the same JobManager reports it
            get(http, url + "/jobs/" + jobs.get(i).get("jobId").asText() + "/checkpoints", dir.resolve("checkpoints-finished-" + i + ".json"));
        }
        JsonNode dec = resolve(s, w, sc, url, rk);
        // the job held still: the latest completed checkpoint did not move while resumectl read it
        JsonNode after = get(http, url + "/jobs/" + jobId + "/checkpoints", null);
        long k = checkpoints.path("latest").path("completed").path("id").asLong(-1);
        String p = checkpoints.path("latest").path("completed").path("external_path").asText(null);
        if (k < 0 || p == null) {
            throw new Scenarios.Mismatch("Flink's REST API reports no completed checkpoint of the held job " + jobId + ": " + checkpoints);
        }
        if (after.path("latest").path("completed").path("id").asLong(-1) != k) {
            throw new Scenarios.Mismatch("the held job's latest completed checkpoint moved from " + k + " to "
                    + after.path("latest").path("completed").path("id") + " while resumectl read it: the hold did not hold");
        }
        ObjectNode fr = flink.putObject("rest");
        fr.put("url", url);
        fr.put("latest_completed_id", k);
        fr.put("latest_completed_path", p);
        fr.set("overview", overview);
        // Flink's own answers against what the child did: the jobs' states, the restore, the savepoint
        for (int i = 0; i < jobs.size(); i++) {
            String id = jobs.get(i).get("jobId").asText();
            String want = i == jobs.size() - 1 ? "RUNNING" : "FINISHED";
            String st = null;
            for (JsonNode j : overview.path("jobs")) {
                if (j.path("jid").asText().equals(id)) {
                    st = j.path("state").asText();
                }
            }
            if (!want.equals(st)) {
                throw new Scenarios.Mismatch("/jobs/overview says job " + id + " is " + st + ", the child left it " + want);
            }
        }
        JsonNode restored = checkpoints.path("latest").path("restored");
        if (held.has("restoredPath") && !HaOracle.samePath(restored.path("external_path").asText(null), held.get("restoredPath").asText())) {
            throw new Scenarios.Mismatch("/jobs/" + jobId + "/checkpoints says the job restored " + restored
                    + ", the child restored " + held.get("restoredPath").asText());
        }
        JsonNode sp = checkpoints.path("latest").path("savepoint");
        String tookSp = null;
        for (JsonNode x : held.path("savepoints")) {
            tookSp = x.path("path").asText();
        }
        if (tookSp != null && !HaOracle.samePath(sp.path("external_path").asText(null), tookSp)) {
            throw new Scenarios.Mismatch("/jobs/" + jobId + "/checkpoints' latest savepoint is " + sp + ", the child took " + tookSp);
        }
        // storage: the REST API's latest completed checkpoint is the job's newest complete one on disk
        Path chk = Paths.get(URI.create(p.startsWith("file:///") ? p : p.replaceFirst("^file:/*", "file:///")));
        if (!Files.exists(chk.resolve("_metadata"))) {
            throw new Scenarios.Mismatch("the REST API's latest completed checkpoint " + p + " has no _metadata on disk");
        }
        long newest = -1;
        try (Stream<Path> ls = Files.list(w.resolve("ck").resolve(jobId))) {
            for (Path d : (Iterable<Path>) ls::iterator) {
                String n = d.getFileName().toString();
                if (n.matches("chk-[0-9]+") && Files.exists(d.resolve("_metadata"))) {
                    newest = Math.max(newest, Long.parseLong(n.substring(4)));
                }
            }
        }
        fr.put("storage_newest_complete_id", newest);
        if (newest != k) {
            throw new Scenarios.Mismatch("the REST API's latest completed checkpoint is " + k + ", storage's newest complete one of job "
                    + jobId + " is " + newest);
        }
        // resumekit: the record says the job runs and names checkpoint k; the choice is k
        JsonNode src = source(dec, "flink-rest");
        List<String> codes = codes(src);
        if (!src.path("job_id").asText().equals(jobId) || !src.path("status").asText().equals("RUNNING")
                || src.path("checkpoint_id").asLong(-1) != k || !HaOracle.samePath(src.path("path").asText(null), p)
                || !codes.contains("record.job-running")) {
            throw new Scenarios.Mismatch("resumectl's REST record " + src + " does not say job " + jobId
                    + " is RUNNING with latest completed checkpoint " + k + " (" + p + ") and record.job-running");
        }
        for (String c : codes) {
            if (!c.equals("record.job-running")) {
                throw new Scenarios.Mismatch("resumectl's REST record disagrees with storage (" + c + ") although storage's newest complete checkpoint is the REST API's: " + src);
            }
        }
        if (rk.path("chosen_id").asLong(-1) != k || !HaOracle.samePath(rk.path("chosen").asText(null), p)) {
            throw new Scenarios.Mismatch("resumekit chose " + rk.path("chosen").asText(null) + ", storage's newest complete checkpoint is " + p);
        }
        JsonNode alone = flinkRecord(s, w, sc, url, "flink-rest", flink);
        if (!alone.path("status").asText().equals("RUNNING") || alone.path("checkpoint_id").asLong(-1) != k
                || !alone.path("storage").asText().startsWith("complete") || !codes(alone).contains("record.job-running")) {
            throw new Scenarios.Mismatch("resumectl flink record " + alone + " does not say job " + jobId
                    + " is RUNNING with latest completed checkpoint " + k + ", complete in storage");
        }
        flink.put("verdict", "the running job's REST API names checkpoint " + k + ", storage's newest complete one and resumekit's choice; the record (resolve and flink record) says the job runs");
    }

    /** The JobResultStore record of a job stopped with a savepoint. */
    static void jobResultStore(Scenarios s, Path w, JsonNode sc, JsonNode facts, ObjectNode rk, ObjectNode flink) throws Exception {
        JsonNode job = facts.get("jobs").get(facts.get("jobs").size() - 1);
        String jobId = job.get("jobId").asText();
        String stopPath = null;
        for (JsonNode x : job.path("savepoints")) {
            if (x.path("stop").asBoolean()) {
                stopPath = x.path("path").asText();
            }
        }
        if (stopPath == null || !job.path("success").asBoolean(false)) {
            throw new Scenarios.Mismatch("the record child's job " + jobId + " did not end by a stop-with-savepoint: " + job);
        }
        Path jrs = w.resolve("jrs");
        Path clean = jrs.resolve(jobId + ".json");
        if (!Files.exists(clean) || Files.exists(jrs.resolve(jobId + "_DIRTY.json"))) {
            throw new Scenarios.Mismatch("the JobResultStore " + jrs + " holds no clean entry of job " + jobId);
        }
        ObjectNode fj = flink.putObject("job_result_store");
        fj.put("entry", clean.toString());
        fj.set("content", Flink.JSON.readTree(clean.toFile()));
        fj.put("stop_with_savepoint", stopPath);
        JsonNode dec = resolve(s, w, sc, null, rk);
        JsonNode src = source(dec, "flink-job-result-store");
        List<String> codes = codes(src);
        if (!src.path("job_id").asText().equals(jobId) || !src.path("finished_cleanly").asBoolean(false)
                || !codes.contains("record.finished-cleanly")) {
            throw new Scenarios.Mismatch("resumectl's JobResultStore record " + src + " does not say job " + jobId
                    + " finished cleanly (record.finished-cleanly) although Flink wrote its clean entry " + fj.get("content"));
        }
        if (!HaOracle.samePath(rk.path("chosen").asText(null), stopPath)) {
            throw new Scenarios.Mismatch("resumekit chose " + rk.path("chosen").asText(null) + ", the job's final state is its stop-with-savepoint " + stopPath);
        }
        JsonNode alone = flinkRecord(s, w, sc, null, "flink-job-result-store", flink);
        if (!alone.path("job_id").asText().equals(jobId) || !alone.path("finished_cleanly").asBoolean(false)
                || !codes(alone).contains("record.finished-cleanly")) {
            throw new Scenarios.Mismatch("resumectl flink record " + alone + " does not say job " + jobId + " finished cleanly");
        }
        flink.put("verdict", "the JobResultStore's clean entry says job " + jobId + " finished " + src.path("status").asText()
                + " (resolve and flink record); resumekit chose its stop-with-savepoint " + stopPath);
    }

    /** Runs the file's resolve; fills rk as {@link Scenarios} does (exit, chosen, warnings, record). */
    static JsonNode resolve(Scenarios s, Path w, JsonNode sc, String restUrl, ObjectNode rk) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(s.resumectl.toString());
        cmd.add("resolve");
        for (JsonNode a : sc.get("resolve")) {
            cmd.add(restUrl == null ? a.asText() : a.asText().replace("${rest}", restUrl));
        }
        cmd.add("--json");
        cmd.add("--timeout");
        cmd.add("60s");
        Path rout = w.resolve("resolve-0.json");
        Path rerr = w.resolve("resolve-0.err");
        Process p = new ProcessBuilder(cmd).redirectOutput(rout.toFile()).redirectError(rerr.toFile()).start();
        if (!p.waitFor(90, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new Scenarios.Mismatch("resumectl resolve did not end within 90 s");
        }
        int rc = p.exitValue();
        rk.put("exit", rc);
        JsonNode dec;
        try {
            dec = Flink.JSON.readTree(rout.toFile());
        } catch (Exception e) {
            throw new Scenarios.Mismatch("resumectl resolve exit " + rc + " printed no JSON: " + Files.readString(rerr));
        }
        JsonNode chosen = dec.path("chosen");
        rk.put("kind", chosen.path("kind").asText(null));
        rk.put("guarantee", chosen.path("guarantee").asText(null));
        if (chosen.path("position").has("checkpoint_id")) {
            rk.put("chosen_id", chosen.path("position").get("checkpoint_id").asLong());
        }
        rk.put("chosen", chosen.path("position").path("path").asText(null));
        ArrayNode warn = rk.putArray("warnings");
        chosen.path("warnings").forEach(x -> warn.add(x.path("code").asText()));
        if (dec.has("record")) {
            rk.set("record", dec.get("record"));
        }
        if (rc != 0 && rc != 3) {
            throw new Scenarios.Mismatch("resumectl resolve exit " + rc + ": " + Files.readString(rerr).trim());
        }
        return dec;
    }

    /**
     * {@code resumectl flink record} (the file's {@code flinkRecord} arguments, {@code ${rest}} the REST
     * URL): the record alone, no choice made; it must read the record (exit 0) and its source of
     * {@code kind} must say what resolve's did of the job (its id, status, checkpoint, path).
     */
    static JsonNode flinkRecord(Scenarios s, Path w, JsonNode sc, String restUrl, String kind, ObjectNode flink) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(s.resumectl.toString(), "flink", "record"));
        for (JsonNode a : sc.get("flinkRecord")) {
            cmd.add(restUrl == null ? a.asText() : a.asText().replace("${rest}", restUrl));
        }
        cmd.add("--json");
        Path out = w.resolve("flink-record.json");
        Path err = w.resolve("flink-record.err");
        Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(90, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new Scenarios.Mismatch("resumectl flink record did not end within 90 s");
        }
        if (p.exitValue() != 0) {
            throw new Scenarios.Mismatch("resumectl flink record exit " + p.exitValue() + ": " + Files.readString(err).trim());
        }
        JsonNode rec = Flink.JSON.readTree(out.toFile());
        flink.set("flink_record", rec);
        JsonNode alone = source(Flink.JSON.createObjectNode().set("record", rec), kind);
        JsonNode dec = Flink.JSON.readTree(w.resolve("resolve-0.json").toFile());
        JsonNode withChoice = source(dec, kind);
        for (String f : new String[] {"job_id", "status", "checkpoint_id", "path", "finished_cleanly"}) {
            if (!alone.path(f).equals(withChoice.path(f))) {
                throw new Scenarios.Mismatch("resumectl flink record's " + f + " is " + alone.path(f) + ", resolve's record says "
                        + withChoice.path(f));
            }
        }
        return alone;
    }

    /** The decision's record source of a kind; a Mismatch when there is none or it could not be read. */
    static JsonNode source(JsonNode dec, String kind) throws Scenarios.Mismatch {
        for (JsonNode x : dec.path("record").path("sources")) {
            if (x.path("kind").asText().equals(kind)) {
                if (x.has("error")) {
                    throw new Scenarios.Mismatch("resumectl could not read the " + kind + " record: " + x.get("error").asText());
                }
                return x;
            }
        }
        throw new Scenarios.Mismatch("resumectl's decision has no " + kind + " record: " + dec.path("record"));
    }

    static List<String> codes(JsonNode src) {
        List<String> out = new ArrayList<>();
        src.path("warnings").forEach(x -> out.add(x.path("code").asText()));
        return out;
    }

    /** GET url (the answer kept at keep when given); a Mismatch unless HTTP 200 with JSON. */
    static JsonNode get(HttpClient http, String url, Path keep) throws Exception {
        HttpResponse<byte[]> r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30))
                .header("Accept", "application/json").GET().build(), HttpResponse.BodyHandlers.ofByteArray());
        if (r.statusCode() != 200) {
            throw new Scenarios.Mismatch("GET " + url + ": HTTP " + r.statusCode() + ": " + new String(r.body(), java.nio.charset.StandardCharsets.UTF_8));
        }
        if (keep != null) {
            Files.write(keep, r.body());
        }
        return Flink.JSON.readTree(r.body());
    }

    /**
     * {@code --export}: the trees (ck/, sp/) as {@link Export} writes them, facts.json with the result,
     * and the record itself: Flink's REST answers ({@code rest/}) and JobResultStore entries ({@code jrs/}).
     */
    static void export(Path dst, Path w, ObjectNode result) throws java.io.IOException {
        Export.write(dst, w, List.of(), result);
        for (String d : new String[] {"rest", "jrs"}) {
            Path src = w.resolve(d);
            if (!Files.isDirectory(src)) {
                continue;
            }
            Files.createDirectories(dst.resolve(d));
            try (Stream<Path> ls = Files.list(src)) {
                for (Path f : (Iterable<Path>) ls::iterator) {
                    if (Files.isRegularFile(f)) {
                        Files.copy(f, dst.resolve(d).resolve(f.getFileName().toString()), StandardCopyOption.REPLACE_EXISTING);
                    }
                }
            }
        }
    }
}
