package io.resumekit.conformance;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.commons.cli.CommandLine;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.client.cli.CliFrontendParser;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.checkpoint.RestoredCheckpointStats;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.SavepointRestoreSettings;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.runtime.minicluster.MiniCluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Runs one scenario file: Flink produces the situation (runs in child JVMs, crashed with SIGKILL),
 * damage is applied, {@code resumectl resolve --json} decides, every candidate snapshot is tried in
 * a fresh job (Flink's verdict), the new job is launched exactly from the chosen candidate's launch
 * (Launch.Args through {@link CliFrontendParser}, Launch.Config through
 * {@link SavepointRestoreSettings#fromConfiguration}), drained, and its output judged against the
 * chosen guarantee. The scenario file never says what resumekit should answer.
 */
public final class Scenarios {
    final Path target;
    final Path resumectl;
    final Path exportDir;
    /** The current scenario's trees were exported before a trial could change them (Export.owns). */
    private boolean treesExported;

    public Scenarios(Path target, Path resumectl, Path exportDir) {
        this.target = target;
        this.resumectl = resumectl;
        this.exportDir = exportDir;
    }

    /** A failed expectation: the scenario does not pass, with this why. */
    static final class Mismatch extends Exception {
        Mismatch(String why) {
            super(why);
        }
    }

    /** One snapshot dir found on disk after the runs. */
    static final class Snap {
        Path dir;
        String jobId;
        long id = -1;
        boolean savepoint;
        int run = -1; // the scenario's run that completed it, when Flink reported it (see assignRuns)
        boolean hasMetadata;
        long mtime;
        ArrayNode references; // the files its _metadata references, as Flink resolves them
        ObjectNode trial;

        /** The dir as Flink spells a path in its configuration and CLI: file:// and the literal path. */
        String uri() {
            String u = flinkUri(dir);
            return u.endsWith("/") ? u.substring(0, u.length() - 1) : u;
        }
    }

    /**
     * A local path as a Flink user writes it in a configuration value or a CLI argument:
     * {@code file://} and the literal absolute path. Flink's Path parses such a string as a path and
     * quotes what a URI needs itself; an already URI-encoded string ({@link Path#toUri}) would name a
     * directory with literal {@code %20}s.
     */
    static String flinkUri(Path p) {
        return "file://" + p.toAbsolutePath();
    }

    public ObjectNode run(Path file) throws Exception {
        JsonNode raw = Flink.JSON.readTree(file.toFile());
        String name = raw.get("name").asText();
        // workDir: a directory name of the scenario's choosing (spaces, '%', non-ASCII: how Flink
        // spells such paths in _metadata and parses them in a launch is part of what is judged)
        Path w = target.resolve("work").resolve(raw.path("workDir").asText(name)).toAbsolutePath();
        deleteTree(w);
        Files.createDirectories(w);
        Map<String, String> vars = new LinkedHashMap<>();
        vars.put("${W}", w.toString());
        vars.put("${ck}", w.resolve("ck").toString());
        vars.put("${sp}", w.resolve("sp").toString());
        vars.put("${dstl}", w.resolve("dstl").toString());
        ScenarioKind kind = ScenarioKind.of(raw);
        kind.vars(this, w, name, vars);
        JsonNode sc = Flink.JSON.readTree(subst(Flink.JSON.writeValueAsString(raw), vars));
        kind.prepare(w, name, (ObjectNode) sc);
        ObjectNode result = Flink.JSON.createObjectNode();
        result.put("name", name);
        ObjectNode flink = result.putObject("flink");
        ArrayNode stagesOut = result.putArray("stages");
        long t0 = System.nanoTime();
        MiniCluster trials = null;
        ZooKeeperHa zk = null;
        haZk = null;
        treesExported = false;
        if (kind.alone()) {
            try {
                kind.runAlone(this, w, sc, result);
            } catch (Mismatch m) {
                result.put("passed", false);
                result.put("why", m.getMessage());
            } catch (Exception e) {
                result.put("passed", false);
                result.put("why", "harness error: " + Flink.causes(e));
                e.printStackTrace();
            }
            result.put("seconds", Math.round((System.nanoTime() - t0) / 1e8) / 10.0);
            return result;
        }
        try {
            if (SqlPlanJob.is(sc.get("job"))) {
                SqlPlanJob.preparePlans(sc); // the compiled plan and its edits, as files in the work dir
            }
            ObjectNode settings = (ObjectNode) sc.path("settings").deepCopy();
            if (settings.isMissingNode() || settings.isNull()) {
                settings = Flink.JSON.createObjectNode();
            }
            settings.put("execution.checkpointing.dir", flinkUri(w.resolve("ck")));
            settings.put("execution.checkpointing.savepoint-dir", flinkUri(w.resolve("sp")));
            if (sc.path("ha").asBoolean(false) || sc.path("ha").isObject()) {
                // the HA oracle: the runs' children use ZooKeeper HA (the trials cluster does not)
                zk = ZooKeeperHa.start(w.resolve("zk"));
                haZk = zk;
            }
            ArrayNode runsOut = flink.putArray("runs");
            List<JsonNode> runFacts = new ArrayList<>();
            int i = 0;
            for (JsonNode run : sc.get("runs")) {
                JsonNode facts = runChild(w, settings, sc, run, i, runFacts);
                runFacts.add(facts);
                this.runFacts = runFacts;
                runsOut.add(facts);
                i++;
            }
            kind.afterRuns(w, sc, flink);
            // Flink's view of every snapshot on disk, before any damage.
            List<Snap> snaps = kind.inventories(sc) ? inventory(w) : new ArrayList<>();
            assignRuns(snaps, runFacts);
            if (kind.inventories(sc) && snaps.isEmpty()
                    && runFacts.stream().anyMatch(f -> f.path("completed").size() > 0)) {
                // never a vacuous pass: Flink reported completed snapshots, so they must be on disk here
                throw new Mismatch("Flink completed " + runFacts.get(0).path("completed").size()
                        + " snapshot(s) but none is under " + w.resolve("ck") + " or " + w.resolve("sp"));
            }
            for (int fi = 0; fi < runFacts.size(); fi++) {
                JsonNode f = runFacts.get(fi);
                if (f.has("restoredPath")) {
                    // did the restored snapshot survive the run (CLAIM lets the new job delete it)?
                    Path from = Paths.get(java.net.URI.create(f.get("restoredPath").asText()));
                    ((ObjectNode) f).put("restoredPathExistsAfter", Files.exists(from));
                    // the run's first checkpoint after the restore: how many of its references lie in
                    // the restored snapshot's dir, and how many outside the run's own job dir
                    Snap first = null;
                    for (Snap sn : snaps) {
                        if (!sn.savepoint && sn.hasMetadata && f.path("jobId").asText().equals(sn.jobId)
                                && (sn.run < 0 || sn.run == fi) && (first == null || sn.id < first.id)) {
                            first = sn;
                        }
                    }
                    if (first != null && first.references != null) {
                        int into = 0;
                        int outside = 0;
                        ArrayNode missing = Flink.JSON.createArrayNode();
                        int sameNameInRestored = 0;
                        for (JsonNode ref : first.references) {
                            Path rp = Paths.get(java.net.URI.create(ref.asText()));
                            into += rp.startsWith(from) ? 1 : 0;
                            outside += rp.startsWith(first.dir.getParent()) ? 0 : 1;
                            if (!Files.exists(rp)) {
                                missing.add(ref.asText());
                                // a relative handle of the restored snapshot re-resolved against this dir?
                                sameNameInRestored += Files.exists(from.resolve(rp.getFileName().toString())) ? 1 : 0;
                            }
                        }
                        ObjectNode fc = ((ObjectNode) f).putObject("firstCheckpoint");
                        fc.put("path", first.uri());
                        fc.put("references", first.references.size());
                        fc.put("intoRestored", into);
                        fc.put("outsideJobDir", outside);
                        fc.set("missing", missing);
                        fc.put("missingFoundInRestored", sameNameInRestored);
                    }
                }
            }
            ObjectNode tsettings = settings.deepCopy();
            tsettings.put("execution.checkpointing.dir", flinkUri(w.resolve("trials/ck")));
            tsettings.put("execution.checkpointing.savepoint-dir", flinkUri(w.resolve("trials/sp")));
            tsettings.put("execution.checkpointing.num-retained", "1000");
            Configuration tconf = Flink.configuration(tsettings);
            trials = Flink.start(tconf);
            JsonNode stages = sc.has("stages") ? sc.get("stages") : Flink.JSON.createArrayNode().add(sc);
            boolean passed = true;
            List<String> whys = new ArrayList<>();
            int s = 0;
            for (JsonNode stage : stages) {
                ObjectNode so = stagesOut.addObject();
                so.put("stage", stage.path("stage").asText("main"));
                try {
                    runStage(w, sc, kind, stage, s, tconf, trials, snaps, so);
                    so.put("passed", true);
                } catch (Mismatch m) {
                    so.put("passed", false);
                    so.put("why", m.getMessage());
                    passed = false;
                    whys.add(so.get("stage").asText() + ": " + m.getMessage());
                }
                s++;
            }
            result.put("passed", passed);
            if (!passed) {
                result.put("why", String.join("; ", whys));
            }
            ArrayNode inv = flink.putArray("snapshots");
            for (Snap sn : snaps) {
                ObjectNode o = inv.addObject();
                o.put("path", sn.uri());
                o.put("id", sn.id);
                o.put("savepoint", sn.savepoint);
                o.put("metadata", sn.hasMetadata);
                if (sc.path("recordReferences").asBoolean(false) && sn.references != null) {
                    o.set("references", sn.references);
                }
                if (sn.trial != null) {
                    o.set("trial", sn.trial);
                }
            }
            if (exportDir != null) {
                if (treesExported) {
                    Export.facts(exportDir.resolve(name), w, snaps, result);
                } else {
                    Export.write(exportDir.resolve(name), w, snaps, result);
                }
                if (SqlPlanJob.is(sc.get("job"))) {
                    SqlPlanJob.exportPlans(exportDir.resolve(name), sc, w);
                }
            }
            if (zk != null) {
                // last: a recovered job whose tasks run (ha.runTasks) may still write a checkpoint
                // into the scenario's dirs before its cancel lands; nothing reads them after this
                try {
                    HaOracle.run(w, sc, zk, runFacts, stagesOut, flink);
                } catch (Mismatch m) {
                    whys.add("ha: " + m.getMessage());
                    result.put("passed", false);
                    result.put("why", String.join("; ", whys));
                } finally {
                    if (exportDir != null) {
                        HaOracle.export(exportDir.resolve(name), flink);
                    }
                }
            }
        } catch (Mismatch m) {
            result.put("passed", false);
            result.put("why", m.getMessage());
        } catch (Exception e) {
            result.put("passed", false);
            result.put("why", "harness error: " + Flink.causes(e));
            e.printStackTrace();
        } finally {
            if (zk != null) {
                zk.close();
            }
            if (trials != null) {
                trials.close();
            }
            result.put("seconds", Math.round((System.nanoTime() - t0) / 1e8) / 10.0);
        }
        // The summary's short form: the first (main) stage's view.
        if (stagesOut.size() > 0) {
            JsonNode first = stagesOut.get(0);
            result.set("resumekit", first.path("resumekit"));
            ObjectNode f = (ObjectNode) result.get("flink");
            f.set("restorable", first.path("flink").path("restorable"));
            f.set("restored", first.path("flink").path("restored"));
            f.set("lost", first.path("flink").path("lost"));
            f.set("duplicated", first.path("flink").path("duplicated"));
        }
        return result;
    }

    // ---------------------------------------------------------------- runs

    JsonNode runChild(Path w, ObjectNode settings, JsonNode sc, JsonNode run, int i, List<JsonNode> previous)
            throws Exception {
        Path control = w.resolve("run-" + i);
        ObjectNode spec = Flink.JSON.createObjectNode();
        spec.put("control", control.toString());
        ObjectNode rs = settings.deepCopy();
        if (run.has("settings")) {
            rs.setAll((ObjectNode) run.get("settings"));
        }
        if (haZk != null) {
            // a cluster id per run: a later run's JobManager must not recover an earlier run's job
            rs.setAll(haZk.settings(w.resolve("ha"), sc.get("name").asText() + "-run" + i));
        }
        spec.set("settings", rs);
        spec.set("job", merge(sc.path("job"), run.path("job")));
        spec.set("variant", run.path("variant").isMissingNode() ? Flink.JSON.createObjectNode() : run.get("variant"));
        spec.put("jobId", run.has("jobId") ? run.get("jobId").asText() : jobId(sc.get("name").asText(), i));
        // a run of another application may write its own journal ("journal"), so the judged output
        // is the new job's application's only
        spec.put("journal", run.has("journal") ? run.get("journal").asText() : w.resolve("journal").toString());
        spec.put("tag", "run" + i);
        spec.put("savepointDir", flinkUri(w.resolve("sp")));
        spec.set("actions", run.get("actions"));
        if (run.has("restoreFrom")) {
            JsonNode rf = run.get("restoreFrom");
            JsonNode pf = previous.get(rf.get("run").asInt());
            String path = null;
            if (rf.has("savepoint")) {
                // {"run": i, "savepoint": "NATIVE"|"CANONICAL"}: that run's newest savepoint of the format
                for (JsonNode sp : pf.path("savepoints")) {
                    if (sp.path("format").asText().equals(rf.get("savepoint").asText())) {
                        path = sp.get("path").asText();
                    }
                }
                if (path == null) {
                    throw new Mismatch("run " + rf.get("run") + " took no " + rf.get("savepoint").asText() + " savepoint to restore from");
                }
            } else {
                for (JsonNode c : pf.get("completed")) {
                    if (!c.get("savepoint").asBoolean()) {
                        path = c.get("path").asText();
                    }
                }
            }
            if (path == null) {
                throw new Mismatch("run " + rf.get("run") + " completed no checkpoint to restore from");
            }
            ObjectNode r = spec.putObject("restore");
            r.put("path", path);
            r.put("claimMode", rf.path("claimMode").asText("NO_CLAIM"));
        }
        Path specFile = w.resolve("run-" + i + ".json");
        Flink.writeJson(specFile, spec);
        // "onFlink": the run's Flink line when it is not the harness's (an upgrade's 1.20 run, a
        // rollback's 2.x run): FlinkNode on conformance/crossline's classpath
        try (ChildJvm c = ChildJvm.start(FlinkNode.class.getName(), specFile, control, run.path("onFlink").asText(null))) {
            long end = System.nanoTime() + Duration.ofSeconds(150).toNanos();
            while (true) {
                if (Files.exists(control.resolve("ready-to-kill"))) {
                    c.kill();
                    break;
                }
                if (Files.exists(control.resolve("done"))) {
                    c.awaitExit(Duration.ofSeconds(60));
                    break;
                }
                if (!c.process.isAlive() && c.process.exitValue() == 137 && Files.exists(control.resolve("expect-halt"))
                        && Files.exists(control.resolve("commit-halted"))) {
                    break; // the armed crash point halted the JVM itself
                }
                if (!c.process.isAlive()) {
                    throw new Mismatch("run " + i + " child JVM exited " + c.process.exitValue() + ": "
                            + ChildJvm.tail(control.resolve("facts.json")) + " " + ChildJvm.tail(control.resolve("stderr.log")));
                }
                if (System.nanoTime() > end) {
                    throw new Mismatch("run " + i + " timed out; stderr: " + ChildJvm.tail(control.resolve("stderr.log")));
                }
                Thread.sleep(50);
            }
        }
        JsonNode facts = Flink.JSON.readTree(control.resolve("facts.json").toFile());
        if (facts.has("error")) {
            throw new Mismatch("run " + i + " failed in Flink: " + facts.get("error").asText());
        }
        return facts;
    }

    /**
     * Flink's own answer to "where does each partition continue after the newest checkpoint": for
     * one run crashed mid-checkpoint (block, which waits for every commit of the checkpoints before),
     * the two-phase sink committed exactly the output of the records read before that checkpoint's
     * barrier, so per partition the committed ids are offsets 0..n-1 and n is the next offset the
     * checkpoint's KafkaSource state must hold. Null when the run does not fit (or the output has a gap).
     */
    static ObjectNode sourceOffsetsFromOutput(Path w, JsonNode sc) throws IOException {
        JsonNode runs = sc.get("runs");
        if (runs.size() != 1) {
            return null;
        }
        JsonNode actions = runs.get(0).get("actions");
        if (!actions.get(actions.size() - 1).path("crash").asText("").equals("block")) {
            return null;
        }
        Snap newest = null;
        for (Snap sn : inventory(w)) {
            if (sn.hasMetadata && !sn.savepoint && (newest == null || sn.id > newest.id)) {
                newest = sn;
            }
        }
        if (newest == null) {
            return null;
        }
        int parts = sc.path("job").path("keys").asInt(3);
        long[] max = new long[parts];
        long[] count = new long[parts];
        java.util.Arrays.fill(max, -1);
        Path j = w.resolve("journal");
        if (Files.isDirectory(j)) {
            try (var files = Files.list(j)) {
                for (Path f : (Iterable<Path>) files.filter(x -> !x.getFileName().toString().startsWith("."))::iterator) {
                    for (String line : Files.readAllLines(f)) {
                        if (line.isBlank()) {
                            continue;
                        }
                        long id = Long.parseLong(line.substring(0, line.indexOf(',')));
                        int p = (int) (id % parts);
                        max[p] = Math.max(max[p], id / parts);
                        count[p]++;
                    }
                }
            }
        }
        ObjectNode o = Flink.JSON.createObjectNode();
        o.put("dir", w.relativize(newest.dir).toString());
        ObjectNode offs = o.putObject("offsets");
        for (int p = 0; p < parts; p++) {
            if (count[p] != max[p] + 1) {
                return null; // a gap or a duplicate: not a clean cut
            }
            offs.put(Integer.toString(p), max[p] + 1);
        }
        return o;
    }

    static String jobId(String name, int i) {
        return String.format("%032x", new java.math.BigInteger(1, md5((name + "/" + i).getBytes(StandardCharsets.UTF_8))));
    }

    static byte[] md5(byte[] b) {
        try {
            return java.security.MessageDigest.getInstance("MD5").digest(b);
        } catch (Exception e) {
            throw new RuntimeException(e);
        }
    }

    static ObjectNode merge(JsonNode a, JsonNode b) {
        ObjectNode o = a.isObject() ? ((ObjectNode) a).deepCopy() : Flink.JSON.createObjectNode();
        if (b.isObject()) {
            o.setAll((ObjectNode) b.deepCopy());
        }
        return o;
    }

    // ----------------------------------------------------------- inventory

    static List<Snap> inventory(Path w) throws IOException {
        List<Snap> out = new ArrayList<>();
        Path ck = w.resolve("ck");
        if (Files.isDirectory(ck)) {
            try (Stream<Path> jobs = Files.list(ck)) {
                for (Path job : (Iterable<Path>) jobs.sorted()::iterator) {
                    try (Stream<Path> cs = Files.list(job)) {
                        for (Path c : (Iterable<Path>) cs.sorted()::iterator) {
                            String n = c.getFileName().toString();
                            if (!n.startsWith("chk-")) {
                                continue;
                            }
                            Snap s = new Snap();
                            s.dir = c;
                            s.jobId = job.getFileName().toString();
                            s.id = Long.parseLong(n.substring(4));
                            fill(s);
                            out.add(s);
                        }
                    }
                }
            }
        }
        Path sp = w.resolve("sp");
        if (Files.isDirectory(sp)) {
            try (Stream<Path> ss = Files.list(sp)) {
                for (Path c : (Iterable<Path>) ss.sorted()::iterator) {
                    Snap s = new Snap();
                    s.dir = c;
                    s.savepoint = true;
                    fill(s);
                    out.add(s);
                }
            }
        }
        return out;
    }

    static void fill(Snap s) throws IOException {
        Path md = s.dir.resolve("_metadata");
        s.hasMetadata = Files.exists(md);
        if (s.hasMetadata) {
            s.mtime = Files.getLastModifiedTime(md).toMillis();
            try {
                CheckpointMetadata m = References.load(s.dir);
                s.id = m.getCheckpointId();
                s.references = Flink.JSON.valueToTree(References.files(m));
            } catch (Exception e) {
                // a damaged _metadata: the id stays the dir's
            }
        }
    }

    // -------------------------------------------------------------- stages

    void runStage(Path w, JsonNode sc, ScenarioKind kind, JsonNode stage, int si, Configuration tconf, MiniCluster mc, List<Snap> snaps,
                  ObjectNode out) throws Exception {
        if (stage.has("compat")) {
            compatStage(w, sc, stage, si, tconf, mc, snaps, out);
            if (!stage.has("resolve")) {
                return;
            }
        }
        ObjectNode fl = out.has("flink") ? (ObjectNode) out.get("flink") : out.putObject("flink");
        // 1. damage
        ArrayNode dmg = fl.putArray("damage");
        for (JsonNode d : stage.path("damage")) {
            dmg.add(damage(w, d, snaps));
        }
        // the trees as Flink and the damage left them, before a trial lets Flink own (and delete) them
        boolean owning = Export.owns(stage.path("trialClaimMode").asText("NO_CLAIM"));
        for (JsonNode extra : stage.path("alsoTry")) {
            owning |= Export.owns(extra.path("claimMode").asText());
        }
        if (exportDir != null && !treesExported && owning) {
            Export.trees(exportDir.resolve(sc.get("name").asText()), w, snaps);
            treesExported = true;
        }
        // 2. resumekit decides
        List<String> cmd = new ArrayList<>();
        cmd.add(resumectl.toString());
        cmd.add("resolve");
        for (JsonNode a : stage.get("resolve")) {
            cmd.add(PaimonDamage.subst(w, a.asText()));
        }
        if (si == 0 && haZk != null && runFacts != null && !runFacts.isEmpty()) {
            // Flink's own record beside storage (issue 32): the killed run's ZooKeeper HA store and
            // its HA storage dir, read before the HA oracle's recovery runs; HaOracle checks that the
            // record names the checkpoint the recovery restored (or its failure).
            JsonNode runSpec = Flink.JSON.readTree(w.resolve("run-" + (runFacts.size() - 1) + ".json").toFile());
            cmd.add("--flink-zookeeper");
            cmd.add(haZk.quorum());
            cmd.add("--flink-cluster-id");
            cmd.add(runSpec.path("settings").path("high-availability.cluster-id").asText());
            cmd.add("--flink-ha-storage");
            cmd.add(w.resolve("ha").toString());
        }
        cmd.add("--json");
        cmd.add("--timeout");
        cmd.add("60s");
        ProcessBuilder pb = new ProcessBuilder(cmd);
        Path rout = w.resolve("resolve-" + si + ".json");
        pb.redirectOutput(rout.toFile());
        pb.redirectError(w.resolve("resolve-" + si + ".err").toFile());
        Process p = pb.start();
        if (!p.waitFor(90, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new Mismatch("resumectl resolve did not end within 90 s");
        }
        int rc = p.exitValue();
        ObjectNode rk = out.putObject("resumekit");
        rk.put("exit", rc);
        JsonNode dec;
        try {
            dec = Flink.JSON.readTree(rout.toFile());
        } catch (Exception e) {
            throw new Mismatch("resumectl resolve exit " + rc + " printed no JSON: " + Files.readString(w.resolve("resolve-" + si + ".err")));
        }
        JsonNode chosen = dec.path("chosen");
        String chosenPath = chosen.path("position").path("path").asText(null);
        Long chosenId = chosen.path("position").has("checkpoint_id") ? chosen.path("position").get("checkpoint_id").asLong() : null;
        rk.put("kind", chosen.path("kind").asText(null));
        rk.put("guarantee", chosen.path("guarantee").asText(null));
        if (chosenId != null) {
            rk.put("chosen_id", chosenId);
        }
        rk.put("chosen", chosenPath);
        ArrayNode warn = rk.putArray("warnings");
        for (JsonNode wn : chosen.path("warnings")) {
            warn.add(wn.path("code").asText());
        }
        if (dec.has("record")) {
            rk.set("record", dec.get("record")); // Flink's own record beside storage (HA scenarios)
        }
        // Only the snapshots under the locations resumekit was shown compete (candidatesUnder).
        if (stage.has("candidatesUnder")) {
            List<Path> under = new ArrayList<>();
            stage.get("candidatesUnder").forEach(x -> under.add(Paths.get(x.asText())));
            List<Snap> kept = new ArrayList<>();
            for (Snap sn : snaps) {
                if (under.stream().anyMatch(u -> sn.dir.startsWith(u))) {
                    kept.add(sn);
                }
            }
            snaps = kept;
        }
        // 3. Flink tries every snapshot (NO_CLAIM unless the stage says otherwise: the tried
        // snapshot stays as it is), with the new job.
        JsonNode variant = stage.path("newJob").path("variant");
        ArrayNode restorable = fl.putArray("restorable");
        ArrayNode refused = fl.putArray("not_restorable");
        String trialMode = stage.path("trialClaimMode").asText("NO_CLAIM");
        boolean trialAllow = stage.path("trialAllowNonRestoredState").asBoolean(false);
        int k = 0;
        for (Snap sn : snaps) {
            ObjectNode t = trial(w, sc, variant, tconf, mc, sn, trialMode, trialAllow, si + "-" + (k++));
            sn.trial = t;
            if (t.path("restorable").asBoolean()) {
                restorable.add(sn.uri());
            } else {
                refused.addObject().put("path", sn.uri()).put("error", t.path("error").asText());
            }
        }
        for (JsonNode extra : stage.path("alsoTry")) {
            // e.g. the chosen snapshot under another claim mode, to record Flink's verdict
            Snap sn = find(snaps, chosenPath);
            if (sn != null) {
                ObjectNode t = trial(w, sc, variant, tconf, mc, sn, extra.path("claimMode").asText(),
                        extra.path("allowNonRestoredState").asBoolean(false), si + "-x" + (k++));
                fl.putArray("also_tried").addObject().put("claimMode", extra.path("claimMode").asText())
                        .set("outcome", t);
            }
        }
        if (stage.path("listAgrees").asBoolean(false)) {
            listAgrees(w, stage, si, snaps, fl);
        }
        if (UpgradeJudge.wanted(stage)) {
            // snapshots of one Flink line restored on the other: resumekit per snapshot beside Flink's trials
            UpgradeJudge.judge(this, w, stage, si, snaps, dec, fl);
        }
        // 1 (a source failed), 4 (all refused for data loss) and 5 (none fits the new job) choose nothing
        boolean noneChosen = chosen.isMissingNode() || chosen.isNull();
        if (rc != 0 && rc != 3 && !((rc == 1 || rc == 4 || rc == 5) && noneChosen)) {
            throw new Mismatch("resumectl resolve exit " + rc + ": " + Files.readString(w.resolve("resolve-" + si + ".err")).trim());
        }
        if (rc != 0) {
            rk.put("error", Files.readString(w.resolve("resolve-" + si + ".err")).trim());
        }
        Damage.checkNamed(dmg, snaps, Files.readString(rout) + Files.readString(w.resolve("resolve-" + si + ".err")), fl);
        if (stage.path("compareReferences").asBoolean(false) && find(snaps, chosenPath) != null) {
            Damage.compareReferences(find(snaps, chosenPath), chosen.path("position"), fl);
        }
        if (stage.has("otherApplications") && (noneChosen || find(snaps, chosenPath) != null)
                && Applications.judge(this, w, sc, stage, tconf, mc, snaps, noneChosen ? null : find(snaps, chosenPath), rc,
                        Files.readString(w.resolve("resolve-" + si + ".err")).trim(), runFacts, trialMode, si + "", fl)) {
            return;
        }
        // 4. judge the choice against Flink's trials
        boolean upgrade = String.join(" ", cmd).contains("--flink-intent upgrade");
        Snap best = null;
        for (Snap sn : snaps) {
            if (sn.trial.path("restorable").asBoolean() && (best == null || newer(sn, best))) {
                best = sn;
            }
        }
        ScenarioKind.Stage ks = new ScenarioKind.Stage();
        ks.w = w;
        ks.sc = sc;
        ks.stage = stage;
        ks.si = si;
        ks.tconf = tconf;
        ks.mc = mc;
        ks.snaps = snaps;
        ks.chosen = chosen;
        ks.rk = rk;
        ks.fl = fl;
        ks.cmd = cmd;
        ks.rc = rc;
        ks.stderr = Files.readString(w.resolve("resolve-" + si + ".err")).trim();
        if (kind.judge(this, ks)) {
            return;
        }
        if (chosenPath == null || (chosen.isMissingNode() || chosen.isNull())) {
            if (best == null) {
                fl.put("verdict", "nothing restorable, and resumekit chose nothing");
                return;
            }
            if (!stage.path("newJob").path("stateless").asBoolean(false) && best != null && (chosen.isMissingNode() || chosen.isNull())) {
                if (upgrade || stage.path("allowConservative").asBoolean(false)) {
                    // a policy refusal (upgrade intent, unverified references): recorded, not a disagreement
                    fl.put("verdict", "conservative: resumekit chose nothing, Flink restores " + best.uri());
                    fl.put("conservative", true);
                    return;
                }
                throw new Mismatch("resumekit chose nothing, but Flink restores " + best.uri());
            }
        }
        Snap chosenSnap = chosenPath == null ? null : find(snaps, chosenPath);
        if (chosenPath != null && chosenSnap == null) {
            throw new Mismatch("resumekit chose " + chosenPath + ", which is not a snapshot Flink wrote here");
        }
        if (chosenSnap != null && !chosenSnap.trial.path("restorable").asBoolean()) {
            throw new Mismatch("resumekit chose " + chosenPath + " but Flink cannot restore it with the new job: "
                    + chosenSnap.trial.path("error").asText());
        }
        ArrayNode conservative = fl.putArray("newer_restorable_rejected");
        if (chosenSnap != null) {
            for (Snap sn : snaps) {
                if (sn != chosenSnap && sn.trial.path("restorable").asBoolean() && newer(sn, chosenSnap)) {
                    conservative.add(sn.uri());
                    if (!upgrade && !stage.path("allowConservative").asBoolean(false)) {
                        throw new Mismatch("resumekit chose " + chosenSnap.uri() + " but the newer " + sn.uri()
                                + " restores in Flink (restored id " + sn.trial.path("restoredId") + ")");
                    }
                }
            }
        }
        if (stage.path("recommits").asBoolean(false)
                && (chosenSnap == null || chosenSnap.trial.path("recommitted").asLong(0) == 0)) {
            throw new Mismatch("the stage expects Flink's restore of the chosen snapshot to commit the old job's pending "
                    + "sink transactions, but its trial committed none: " + (chosenSnap == null ? "nothing chosen" : chosenSnap.trial));
        }
        if (chosenSnap != null && chosenSnap.trial.has("recommitted")) {
            fl.put("recommitted_by_restore", chosenSnap.trial.get("recommitted").asLong());
        }
        if (!stage.path("launch").asBoolean(true)) {
            // the choice is judged against Flink's trials only (e.g. an unbounded Kafka restore)
            fl.put("verdict", "chosen " + (chosenSnap == null ? "nothing" : chosenSnap.uri()) + ", the newest snapshot Flink restores; not launched");
            return;
        }
        // 5. launch the new job exactly from the chosen launch
        launchAndJudge(w, sc, stage, si, tconf, mc, chosen, chosenSnap, out, fl);
    }

    /**
     * resumectl flink compat against Flink's restore of the same snapshot with the new job, operator
     * by operator: an operator resumekit drops must be one Flink skips (with -n) or refuses to map,
     * and the overall verdicts must agree.
     */
    void compatStage(Path w, JsonNode sc, JsonNode stage, int si, Configuration tconf, MiniCluster mc, List<Snap> snaps,
                     ObjectNode out) throws Exception {
        Snap sn = null;
        for (Snap s : snaps) {
            if (s.savepoint && s.hasMetadata && (sn == null || newer(s, sn))) {
                sn = s;
            }
        }
        if (sn == null) {
            throw new Mismatch("compat stage: no savepoint was written");
        }
        List<String> cmd = new ArrayList<>(List.of(resumectl.toString(), "flink", "compat", sn.dir.toString()));
        stage.get("compat").forEach(a -> cmd.add(a.asText()));
        cmd.add("--json");
        ProcessBuilder pb = new ProcessBuilder(cmd);
        Path rout = w.resolve("compat-" + si + ".json");
        pb.redirectOutput(rout.toFile());
        pb.redirectError(w.resolve("compat-" + si + ".err").toFile());
        Process p = pb.start();
        if (!p.waitFor(90, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new Mismatch("resumectl flink compat did not end within 90 s");
        }
        JsonNode c;
        try {
            c = Flink.JSON.readTree(rout.toFile());
        } catch (Exception e) {
            throw new Mismatch("resumectl flink compat exit " + p.exitValue() + " printed no JSON: " + Files.readString(w.resolve("compat-" + si + ".err")));
        }
        boolean allow = stage.path("trialAllowNonRestoredState").asBoolean(false);
        ObjectNode t = trial(w, sc, stage.path("newJob").path("variant"), tconf, mc, sn, "NO_CLAIM", allow, si + "-compat");
        out.set("compat_args", stage.get("compat"));
        out.put("compat_snapshot", w.relativize(sn.dir).toString());
        out.put("compat_allow_non_restored_state", allow);
        ObjectNode rk = out.putObject("resumekit");
        rk.put("compatible", c.path("compatible").asBoolean());
        rk.set("dropped", c.path("dropped"));
        rk.put("chosen", sn.uri());
        ObjectNode fl = out.putObject("flink");
        fl.set("trial", t);
        // Flink's operators: skipped with state, skipped empty, refused (named in the error)
        TreeSet<String> skippedWithState = new TreeSet<>();
        TreeSet<String> skippedEmpty = new TreeSet<>();
        for (JsonNode l : t.path("skipped")) {
            String line = l.asText();
            String id = line.substring(line.lastIndexOf(' ') + 1).trim().replaceAll("[^0-9a-f]", "");
            if (line.startsWith("Skipping empty")) {
                skippedEmpty.add(id);
            } else {
                skippedWithState.add(id);
            }
        }
        String err = t.path("error").asText("");
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("for operator ([0-9a-f]{32})|Cannot map operator ([0-9a-f]{32})").matcher(err);
        String refused = m.find() ? (m.group(1) != null ? m.group(1) : m.group(2)) : null;
        fl.set("skipped_with_state", Flink.JSON.valueToTree(skippedWithState));
        fl.set("skipped_empty", Flink.JSON.valueToTree(skippedEmpty));
        fl.put("refused_operator", refused);
        boolean flinkOk = t.path("restorable").asBoolean();
        TreeSet<String> rkDropped = new TreeSet<>();
        TreeSet<String> rkBad = new TreeSet<>();
        for (JsonNode op : c.path("operators")) {
            String match = op.path("match").asText();
            if (match.equals("dropped")) {
                rkDropped.add(op.path("id").asText());
            }
            if (match.equals("dropped")) {
                rkBad.add(op.path("id").asText() + "=" + match);
            }
        }
        // flink compat --json carries no problems (its fields are a contract); the text names them.
        List<String> textCmd = new ArrayList<>(cmd.subList(0, cmd.size() - 1));
        Process tp = new ProcessBuilder(textCmd).redirectErrorStream(true).start();
        String text = new String(tp.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!tp.waitFor(90, TimeUnit.SECONDS)) {
            tp.destroyForcibly();
        }
        java.util.regex.Matcher pm = java.util.regex.Pattern.compile("problem: operator ([0-9a-f]{32})[^\n]*restore fails").matcher(text);
        while (pm.find()) {
            rkBad.add(pm.group(1) + "=problem");
        }
        List<String> problems = new ArrayList<>();
        boolean rkOk = c.path("compatible").asBoolean();
        if (allow) {
            // with -n, every dropped operator must be one Flink skipped with its state
            if (!rkDropped.equals(skippedWithState)) {
                problems.add("dropped operators: resumekit " + rkDropped + ", Flink skipped " + skippedWithState);
            }
            if (!flinkOk) {
                problems.add("Flink refused the restore even with --allowNonRestoredState: " + err);
            }
        } else if (rkOk != flinkOk) {
            problems.add("resumekit says " + (rkOk ? "compatible" : "not compatible " + rkBad) + ", Flink "
                    + (flinkOk ? "restores it" : "refuses: " + err));
        } else if (!flinkOk && refused != null && rkBad.stream().noneMatch(x -> x.startsWith(refused))) {
            problems.add("Flink refuses operator " + refused + " but resumekit flags " + rkBad);
        }
        if (!problems.isEmpty()) {
            throw new Mismatch(String.join("; ", problems));
        }
    }

    /**
     * resumectl flink list of the checkpoint root beside Flink's trials: a snapshot Flink cannot
     * restore must not be listed complete, and one Flink restores must not be listed broken.
     */
    void listAgrees(Path w, JsonNode stage, int si, List<Snap> snaps, ObjectNode fl) throws Exception {
        Process p = new ProcessBuilder(resumectl.toString(), "flink", "list", w.resolve("ck").toString(), "--json")
                .redirectError(w.resolve("list-" + si + ".err").toFile()).start();
        String js = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(90, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new Mismatch("resumectl flink list did not end within 90 s");
        }
        ArrayNode listed = fl.putArray("flink_list");
        List<String> problems = new ArrayList<>();
        for (JsonNode e : Flink.JSON.readTree(js)) {
            Snap sn = find(snaps, e.path("path").asText());
            if (sn == null || sn.trial == null) {
                continue;
            }
            String state = e.path("state").asText();
            boolean ok = sn.trial.path("restorable").asBoolean();
            listed.addObject().put("path", sn.uri()).put("state", state).put("reason", e.path("reason").asText())
                    .put("flink_restores", ok);
            if (!ok && state.equals("complete")) {
                problems.add("flink list says " + sn.uri() + " is complete, Flink cannot restore it: " + sn.trial.path("error").asText());
            } else if (ok && state.equals("broken")) {
                problems.add("flink list says " + sn.uri() + " is broken (" + e.path("reason").asText() + "), Flink restores it");
            }
        }
        if (!problems.isEmpty()) {
            throw new Mismatch(String.join("; ", problems));
        }
    }

    /** Oldest first by {@link #newer}: the order a job dir's lineage gives its snapshots. */
    static final Comparator<Snap> LINEAGE = (a, b) -> newer(a, b) ? 1 : newer(b, a) ? -1 : 0;

    /**
     * Marks each snapshot with the run that completed it (the runs' facts list their completed
     * checkpoints and savepoints by path); a later run's completion of the same path wins.
     */
    static void assignRuns(List<Snap> snaps, List<JsonNode> runFacts) {
        for (int i = 0; i < runFacts.size(); i++) {
            for (JsonNode c : runFacts.get(i).path("completed")) {
                Snap sn = find(snaps, c.path("path").asText(null));
                if (sn != null) {
                    sn.run = i;
                }
            }
        }
    }

    /**
     * Whether a is newer than b as a restart should see it: in one job dir that holds two runs (a
     * run restored from a savepoint continues from its id, one that lost its HA store restarts at
     * 1), the later run's snapshots are newer whatever their ids, as resumekit orders a job dir by
     * run; within a run, or between savepoints, the higher id; across jobs, the later _metadata.
     */
    static boolean newer(Snap a, Snap b) {
        if (a.jobId != null && a.jobId.equals(b.jobId) && a.run >= 0 && b.run >= 0 && a.run != b.run) {
            return a.run > b.run;
        }
        if (a.jobId != null && a.jobId.equals(b.jobId) || a.savepoint || b.savepoint) {
            if (a.id != b.id) {
                return a.id > b.id;
            }
        }
        return a.mtime > b.mtime;
    }

    static Snap find(List<Snap> snaps, String uri) {
        if (uri == null) {
            return null;
        }
        String u = uri.endsWith("/") ? uri.substring(0, uri.length() - 1) : uri;
        for (Snap s : snaps) {
            // Flink reports a completed snapshot's external path as file:/… (its Path drops the empty authority)
            if (s.uri().equals(u) || s.dir.toString().equals(u) || ("file://" + s.dir).equals(u) || ("file:" + s.dir).equals(u)) {
                return s;
            }
        }
        return null;
    }

    ObjectNode trial(Path w, JsonNode sc, JsonNode variant, Configuration tconf, MiniCluster mc, Snap sn,
                     String mode, boolean allowNonRestored, String tag) throws Exception {
        ObjectNode t = Flink.JSON.createObjectNode();
        t.put("claimMode", mode);
        ObjectNode v = variant.isObject() ? ((ObjectNode) variant).deepCopy() : Flink.JSON.createObjectNode();
        v.put("rate", sc.path("job").path("trialRate").asDouble(200));
        ObjectNode tjob = ((ObjectNode) sc.get("job")).deepCopy();
        if (tjob.has("group")) {
            tjob.put("group", tjob.get("group").asText() + "-trial"); // a trial must not commit the group's offsets
        }
        JobGraph jg = CountJob.build(tconf, tjob, v, w.resolve("trials/journal-" + tag).toString(), "trial" + tag);
        JobID id = new JobID();
        jg.setJobID(id);
        // A CLAIM trial does not delete the claimed snapshot: trial jobs retain 1000 checkpoints, so
        // nothing is subsumed before the trial is cancelled (and cancel retains).
        jg.setSavepointRestoreSettings(FlinkLine.restore(sn.uri(), allowNonRestored, mode));
        Capture.clear();
        ObjectNode r = runToFirstCheckpoint(mc, jg, id, Duration.ofSeconds(60), false);
        t.setAll(r);
        // batches of the old runs this restore committed: its restored, pending committables
        Path tj = w.resolve("trials/journal-" + tag);
        if (Files.isDirectory(tj)) {
            try (var files = Files.list(tj)) {
                t.put("recommitted", files.map(f -> f.getFileName().toString()).filter(n -> n.startsWith("run")).count());
            }
        }
        ArrayNode skipped = t.putArray("skipped");
        for (String line : Capture.lines()) {
            skipped.add(line);
        }
        return t;
    }

    /** Submits and waits: restored, then one checkpoint after the restore (or, with drain, the end). */
    static ObjectNode runToFirstCheckpoint(MiniCluster mc, JobGraph jg, JobID id, Duration timeout, boolean drain)
            throws Exception {
        ObjectNode t = Flink.JSON.createObjectNode();
        long end = System.nanoTime() + timeout.toNanos();
        try {
            mc.submitJob(jg).get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            t.put("restorable", false);
            t.put("error", Flink.causes(e));
            return t;
        }
        boolean restoreWanted = jg.getSavepointRestoreSettings().restoreSavepoint();
        while (true) {
            JobStatus st = Flink.status(mc, id);
            RestoredCheckpointStats r = st.isGloballyTerminalState() ? null : Flink.restored(mc, id);
            if (st.isGloballyTerminalState()) {
                JobResult jr = mc.requestJobResult(id).get(30, TimeUnit.SECONDS);
                if (st == JobStatus.FINISHED && drain) {
                    t.put("status", "FINISHED");
                    t.put("restorable", true);
                    return t;
                }
                t.put("restorable", false);
                t.put("status", st.name());
                t.put("error", jr.getSerializedThrowable().map(x -> Flink.causes(x.deserializeError(Scenarios.class.getClassLoader())))
                        .orElse("job ended " + st));
                return t;
            }
            if (!drain && (r != null || !restoreWanted)) {
                long after = Flink.completed(mc, id).stream().filter(c -> !c.getProperties().isSavepoint()).count();
                if (r != null) {
                    t.put("restoredId", r.getCheckpointId());
                }
                if (after >= 1) {
                    t.put("restorable", true);
                    t.put("firstCheckpoint", true);
                    mc.cancelJob(id).get(30, TimeUnit.SECONDS);
                    mc.requestJobResult(id).get(30, TimeUnit.SECONDS);
                    return t;
                }
            }
            if (System.nanoTime() > end) {
                t.put("restorable", false);
                t.put("error", "timed out after " + timeout + " (status " + st + ", restored " + (r == null ? "none" : r.getCheckpointId()) + ")");
                try {
                    mc.cancelJob(id).get(30, TimeUnit.SECONDS);
                } catch (Exception e) {
                    // already ending
                }
                return t;
            }
            Thread.sleep(50);
        }
    }

    // -------------------------------------------------------------- launch

    void launchAndJudge(Path w, JsonNode sc, JsonNode stage, int si, Configuration tconf, MiniCluster mc, JsonNode chosen,
                        Snap chosenSnap, ObjectNode out, ObjectNode fl) throws Exception {
        JsonNode launch = chosen.path("launch");
        List<String> args = new ArrayList<>();
        launch.path("args").forEach(a -> args.add(a.asText()));
        SavepointRestoreSettings fromArgs = SavepointRestoreSettings.none();
        Configuration jobConf = new Configuration(tconf);
        if (!args.isEmpty()) {
            CommandLine cl = CliFrontendParser.parse(CliFrontendParser.getRunCommandOptions(), args.toArray(new String[0]), true);
            if (!cl.getArgList().isEmpty()) {
                throw new Mismatch("Launch.Args has arguments Flink's CLI does not parse as options: " + cl.getArgList());
            }
            fromArgs = CliFrontendParser.createSavepointRestoreSettings(cl);
            Properties dyn = cl.getOptionProperties("D");
            for (String key : dyn.stringPropertyNames()) {
                jobConf.setString(key, dyn.getProperty(key));
            }
        }
        Map<String, String> cfg = new HashMap<>();
        Iterator<Map.Entry<String, JsonNode>> it = launch.path("config").fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            cfg.put(e.getKey(), e.getValue().asText());
        }
        SavepointRestoreSettings fromConfig = SavepointRestoreSettings.fromConfiguration(Configuration.fromMap(cfg));
        ObjectNode lo = fl.putObject("launch");
        lo.put("args", fromArgs.toString());
        lo.put("config", fromConfig.toString());
        if (fromArgs.restoreSavepoint() && fromConfig.restoreSavepoint() && !fromArgs.equals(fromConfig)) {
            throw new Mismatch("Launch.Args and Launch.Config mean different restores to Flink: " + fromArgs + " vs " + fromConfig);
        }
        SavepointRestoreSettings settings = fromArgs.restoreSavepoint() ? fromArgs : fromConfig;
        if (chosenSnap != null && !settings.restoreSavepoint()) {
            throw new Mismatch("resumekit chose " + chosenSnap.uri() + " but its launch restores nothing in Flink");
        }
        ObjectNode v = stage.path("newJob").path("variant").isObject()
                ? ((ObjectNode) stage.path("newJob").path("variant")).deepCopy() : Flink.JSON.createObjectNode();
        v.put("rate", sc.path("job").path("finalRate").asDouble(3000));
        Path journal = w.resolve("stage-" + si + "/journal");
        for (Map.Entry<String, String> e : cfg.entrySet()) {
            jobConf.setString(e.getKey(), e.getValue());
        }
        JobGraph jg = CountJob.build(jobConf, sc.get("job"), v, journal.toString(), "final" + si);
        JobID id = new JobID();
        jg.setJobID(id);
        jg.setSavepointRestoreSettings(settings);
        Capture.clear();
        mc.submitJob(jg).get(60, TimeUnit.SECONDS);
        // restored id and the first checkpoint after it, then drain to the end
        Long restored = null;
        long end = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        JobStatus st;
        long firstCheckpoints = 0;
        while (true) {
            st = Flink.status(mc, id);
            if (!st.isGloballyTerminalState()) {
                RestoredCheckpointStats r = Flink.restored(mc, id);
                if (r != null) {
                    restored = r.getCheckpointId();
                }
                firstCheckpoints = Math.max(firstCheckpoints, Flink.completed(mc, id).size());
            } else {
                break;
            }
            if (System.nanoTime() > end) {
                mc.cancelJob(id).get(30, TimeUnit.SECONDS);
                throw new Mismatch("the new job did not finish within 120 s");
            }
            Thread.sleep(30);
        }
        JobResult jr = mc.requestJobResult(id).get(30, TimeUnit.SECONDS);
        if (st != JobStatus.FINISHED) {
            throw new Mismatch("the new job launched from resumekit's launch ended " + st + ": "
                    + jr.getSerializedThrowable().map(x -> Flink.causes(x.deserializeError(Scenarios.class.getClassLoader()))).orElse(""));
        }
        fl.put("restored", restored);
        Long want = chosenSnap == null ? null : chosenSnap.id;
        if (want != null && (restored == null || restored.longValue() != want.longValue())) {
            throw new Mismatch("the new job restored " + restored + ", not resumekit's chosen checkpoint " + want);
        }
        if (want == null && restored != null) {
            throw new Mismatch("resumekit chose a stateless start but the new job restored checkpoint " + restored);
        }
        // 6. the output across both runs, as committed
        List<Long> restorePoints = new ArrayList<>();
        for (JsonNode f : runFactsOf(out)) {
            restorePoints.add(f.has("restoredId") ? f.get("restoredId").asLong() : null);
        }
        Output o = Output.read(List.of(w.resolve("journal"), journal));
        long records = sc.get("job").path("records").asLong(3000);
        String grade = chosen.path("guarantee").asText();
        Integer finalRun = null; // the run whose checkpoint the new job restores
        for (int r = 0; chosenSnap != null && chosenSnap.jobId != null && r < runFacts.size(); r++) {
            if (chosenSnap.jobId.equals(runFacts.get(r).path("jobId").asText())) {
                finalRun = r;
            }
        }
        fl.put("restored_run", finalRun);
        ObjectNode verdict = o.judge(records, sc.get("job").path("keys").asInt(8), restorePoints, want, finalRun, grade);
        fl.setAll(verdict);
        if (verdict.has("mismatch")) {
            throw new Mismatch(verdict.get("mismatch").asText());
        }
        // only what the new job outputs again counts (a scenario's own run restored from an
        // older snapshot re-emits the old run's output: not resumekit's choice)
        if (verdict.path("duplicated_by_new_job").asLong() > 0 && !hasWarning(chosen, "flink.older-than-broken")
                && !hasWarning(chosen, "flink.savepoint-preferred")) {
            throw new Mismatch(verdict.path("duplicated_by_new_job").asLong() + " records committed by the old job after checkpoint "
                    + want + " are output again, and resumekit did not warn (flink.older-than-broken, flink.savepoint-preferred)");
        }
    }

    List<JsonNode> runFacts = new ArrayList<>();

    /** The HA oracle's ZooKeeper for the runs' children, or null (see {@link HaOracle}). */
    ZooKeeperHa haZk;

    List<JsonNode> runFactsOf(ObjectNode unused) {
        return runFacts;
    }

    static void collectOffsets(JsonNode n, TreeMap<Integer, Long> out) {
        if (n.isObject() && n.has("partition") && n.has("offset")) {
            out.put(n.get("partition").asInt(), n.get("offset").asLong());
        }
        n.forEach(c -> collectOffsets(c, out));
    }

    static boolean hasWarning(JsonNode chosen, String code) {
        for (JsonNode w : chosen.path("warnings")) {
            if (w.path("code").asText().equals(code)) {
                return true;
            }
        }
        return false;
    }

    // -------------------------------------------------------------- damage

    ObjectNode damage(Path w, JsonNode d, List<Snap> snaps) throws Exception {
        ObjectNode o = Flink.JSON.createObjectNode();
        String op = d.get("op").asText();
        o.put("op", op);
        switch (op) {
            case "deleteSharedOfNewest": {
                // a shared/ file the newest completed checkpoint references and the one before does not
                List<Snap> cs = new ArrayList<>();
                for (Snap s : snaps) {
                    if (!s.savepoint && s.hasMetadata) {
                        cs.add(s);
                    }
                }
                cs.sort(LINEAGE);
                if (cs.size() < 2) {
                    throw new Mismatch("damage " + op + ": fewer than two completed checkpoints");
                }
                TreeSet<String> newest = References.files(References.load(cs.get(cs.size() - 1).dir));
                TreeSet<String> older = References.files(References.load(cs.get(cs.size() - 2).dir));
                String victim = null;
                for (String f : newest) {
                    if (f.contains("/shared/") && !older.contains(f)) {
                        victim = f;
                        break;
                    }
                }
                if (victim == null) {
                    throw new Mismatch("damage " + op + ": the newest checkpoint references no shared file of its own: " + newest);
                }
                Files.delete(Paths.get(java.net.URI.create(victim)));
                o.put("deleted", victim);
                break;
            }
            case "deleteDir": {
                Path p = Paths.get(d.get("path").asText());
                deleteTree(p);
                o.put("deleted", p.toString());
                snaps.removeIf(s -> s.dir.startsWith(p));
                break;
            }
            case "truncateMetadata": {
                // the newest completed checkpoint's _metadata cut to half its size (a store without a
                // recoverable writer crashing mid-write leaves exactly that)
                Snap newest = newestCheckpoint(snaps);
                Path md = newest.dir.resolve("_metadata");
                long size = Files.size(md);
                try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(md, java.nio.file.StandardOpenOption.WRITE)) {
                    ch.truncate(size / 2);
                }
                o.put("truncated", md.toString());
                o.put("from", size);
                o.put("to", size / 2);
                break;
            }
            case "moveSavepoints": {
                // every savepoint dir moved to another dir (savepoints are relocatable)
                Path to = Paths.get(d.get("to").asText());
                Files.createDirectories(to);
                ArrayNode moved = o.putArray("moved");
                for (Snap sn : snaps) {
                    if (sn.savepoint) {
                        Path dst = to.resolve(sn.dir.getFileName());
                        Files.move(sn.dir, dst);
                        moved.add(dst.toString());
                        sn.dir = dst;
                    }
                }
                break;
            }
            case "copyNewestCheckpointDeleteJob": {
                // the newest checkpoint copied to another root, then its job dir deleted
                Snap newest = newestCheckpoint(snaps);
                Path to = Paths.get(d.get("to").asText()).resolve(newest.jobId).resolve(newest.dir.getFileName());
                copyTree(newest.dir, to);
                Path jobDir = newest.dir.getParent();
                deleteTree(jobDir);
                snaps.removeIf(x -> x.dir.startsWith(jobDir));
                Snap c = new Snap();
                c.dir = to;
                c.jobId = newest.jobId;
                c.id = newest.id;
                fill(c);
                snaps.add(c);
                o.put("copied", to.toString());
                o.put("deleted", jobDir.toString());
                break;
            }
            case "deleteFileOfNewest": {
                // a file the newest completed checkpoint references whose URI contains "contains"
                // (e.g. "/dstl/" for a changelog DSTL file, "/shared/" or "/taskowned/" for a merged
                // segment file); one the checkpoint before does not reference when there is one
                o.setAll(Damage.deleteFileOfNewest(d.get("contains").asText(), snaps));
                break;
            }
            case "truncateSegmentOfNewest": {
                // a merged file cut inside a segment of the newest checkpoint, above every older one's
                o.setAll(Damage.truncateSegmentOfNewest(d.get("contains").asText(), snaps));
                break;
            }
            case "kafkaDeleteRecords": {
                o.setAll(KafkaScenario.deleteRecords(d.get("bootstrap").asText(), d.get("topic").asText(), d.get("group").asText(),
                        d.path("partition").asInt(0), d.path("pastCommitted").asLong(100)));
                break;
            }
            default:
                if (PaimonDamage.handles(op)) {
                    PaimonDamage.damage(w, d, o);
                    break;
                }
                throw new IllegalArgumentException("unknown damage " + op);
        }
        return o;
    }

    static Snap newestCheckpoint(List<Snap> snaps) throws Mismatch {
        Snap n = null;
        for (Snap s : snaps) {
            if (!s.savepoint && s.hasMetadata && (n == null || newer(s, n))) {
                n = s;
            }
        }
        if (n == null) {
            throw new Mismatch("damage: no completed checkpoint");
        }
        return n;
    }

    // ---------------------------------------------------------------- util

    static String subst(String s, Map<String, String> vars) {
        for (Map.Entry<String, String> e : vars.entrySet()) {
            s = s.replace(e.getKey(), e.getValue());
        }
        return s;
    }

    static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p)) {
            return;
        }
        try (Stream<Path> s = Files.walk(p)) {
            for (Path x : (Iterable<Path>) s.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(x);
            }
        }
    }

    static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path x : (Iterable<Path>) s::iterator) {
                Path t = to.resolve(from.relativize(x).toString());
                if (Files.isDirectory(x)) {
                    Files.createDirectories(t);
                } else {
                    Files.copy(x, t, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }

    static TreeMap<String, Object> unused() {
        return new TreeMap<>();
    }
}
