package io.resumekit.conformance;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.paimon.Snapshot;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.consumer.Consumer;
import org.apache.paimon.consumer.ConsumerManager;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.options.ExpireConfig;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Paimon damage after the streaming reader was killed (P2, P3) and the judgement of the restarted
 * reader against what resumekit reported. The table's history is recorded commit by commit (snapshot
 * id, commit time, batch), before any damage and with every commit the damage makes, so that after
 * a rollback re-used snapshot ids the harness still knows which batch each id held.
 *
 * <p>Damage ops (scenario {@code damage}): {@code paimonSetOptions} (ALTER TABLE SET, Paimon's
 * {@link SchemaChange#setOption}), {@code paimonWrite} (more batch commits, each running the
 * writer's maintenance: consumer expiry by {@code consumer.expiration-time}, then snapshot expiry;
 * {@code afterConsumerIdleMillis} waits until the consumer file is that old first), {@code
 * paimonExpireSnapshots} ({@code table.newExpireSnapshots()}, as {@code sys.expire_snapshots} with
 * {@code retain_max}/{@code retain_min}), {@code paimonRollback} ({@code Table.rollbackTo}, as
 * {@code sys.rollback_to}, to {@code belowConsumer} ids below the killed reader's nextSnapshot).
 *
 * <p>The truth: a batch is lost when no run delivered it although the table still holds it (a batch
 * a rollback removed is not input any more). The new reader is started exactly from the decision's
 * options and must read every snapshot from the start resumekit names; every lost batch must lie in
 * the range resumekit reported, and every batch of that range the killed reader had not delivered
 * must be lost (the new reader skips them): resumekit's range is the skipped one.
 */
final class PaimonDamage {
    private PaimonDamage() {}

    /** One batch commit: the snapshot it made, its commit time, the batch it holds. */
    static final class Commit {
        long snapshot;
        long time;
        int batch;
        boolean rolledBack;
    }

    static final class State {
        String consumer;
        long consumerNext;
        long consumerMtime;
        long progressMillis;
        long latestBefore;
        int per;
        int nextBatch;
        final List<Commit> commits = new ArrayList<>();
    }

    static final Map<Path, State> STATES = new ConcurrentHashMap<>();

    static boolean handles(String op) {
        return op.startsWith("paimon");
    }

    /** Whether the scenario damages its Paimon table (and so is judged here). */
    static boolean applies(JsonNode sc) {
        for (JsonNode d : sc.path("damage")) {
            if (handles(d.path("op").asText(""))) {
                return true;
            }
        }
        return false;
    }

    static Path wh(Path w) {
        return w.resolve("wh");
    }

    static Path consumerFile(Path w, String consumer) {
        return wh(w).resolve("db.db").resolve("orders").resolve("consumer").resolve("consumer-" + consumer);
    }

    /**
     * Records the table and the killed reader's consumer before any damage: snapshot s of the
     * harness's writer commits one batch per APPEND snapshot, in order (compactions the writer runs add COMPACT snapshots between them).
     */
    static void record(Path w, JsonNode sc, ObjectNode fl) throws Exception {
        if (!applies(sc)) {
            return;
        }
        State st = new State();
        JsonNode job = sc.get("job");
        st.consumer = job.path("hints").path("consumer-id").asText("c1");
        st.per = job.path("perBatch").asInt(100);
        st.nextBatch = job.path("batches").asInt(20) + job.path("batchesAfter").asInt(0);
        try (Catalog cat = PaimonStream.catalog(wh(w))) {
            FileStoreTable t = PaimonStream.table(cat);
            Optional<Consumer> c = new ConsumerManager(t.fileIO(), t.location()).consumer(st.consumer);
            if (c.isEmpty()) {
                throw new Scenarios.Mismatch("the killed reader left no consumer " + st.consumer + " (Paimon's ConsumerManager)");
            }
            st.consumerNext = c.get().nextSnapshot();
            st.consumerMtime = Files.getLastModifiedTime(consumerFile(w, st.consumer)).toMillis();
            long earliest = t.snapshotManager().earliestSnapshotId();
            long latest = t.snapshotManager().latestSnapshotId();
            st.latestBefore = latest;
            int batch = 0;
            for (long s = earliest; s <= latest; s++) {
                Snapshot sn = t.snapshotManager().snapshot(s);
                if (sn.commitKind() != Snapshot.CommitKind.APPEND) {
                    continue; // a compaction the writer ran: no new rows
                }
                Commit cm = new Commit();
                cm.snapshot = s;
                cm.time = sn.timeMillis();
                cm.batch = batch++;
                st.commits.add(cm);
            }
            if (earliest != 1 || batch != st.nextBatch) {
                throw new Scenarios.Mismatch("harness: the table holds snapshots " + earliest + ".." + latest + " with " + batch
                        + " appends, not one append per batch from 1 for " + st.nextBatch + " batches");
            }
            if (st.consumerNext > 1) {
                // the time the killed reader had read up to: just after the commit of the last snapshot it consumed
                st.progressMillis = t.snapshotManager().snapshot(st.consumerNext - 1).timeMillis() + 1;
            }
        }
        STATES.put(w, st);
        ObjectNode o = fl.putObject("before_damage");
        o.put("consumer_next_snapshot", st.consumerNext);
        o.put("consumer_file_mtime", st.consumerMtime);
        o.put("batches", st.nextBatch);
        o.put("latest_snapshot", st.commits.isEmpty() ? 0 : st.latestBefore);
        o.put("progress_millis", st.progressMillis);
    }

    /** ${paimonProgress} in a resolve argument: the killed reader's progress in time (unix ms). */
    static String subst(Path w, String arg) {
        State st = STATES.get(w);
        if (st == null || !arg.contains("${paimonProgress}")) {
            return arg;
        }
        return arg.replace("${paimonProgress}", Long.toString(st.progressMillis));
    }

    static void damage(Path w, JsonNode d, ObjectNode o) throws Exception {
        State st = STATES.get(w);
        if (st == null) {
            throw new Scenarios.Mismatch("harness: " + d.get("op").asText() + " on a scenario that is not a Paimon stream scenario");
        }
        String op = d.get("op").asText();
        try (Catalog cat = PaimonStream.catalog(wh(w))) {
            switch (op) {
                case "paimonSetOptions": {
                    List<SchemaChange> changes = new ArrayList<>();
                    Iterator<Map.Entry<String, JsonNode>> it = d.get("options").fields();
                    while (it.hasNext()) {
                        Map.Entry<String, JsonNode> e = it.next();
                        changes.add(SchemaChange.setOption(e.getKey(), e.getValue().asText()));
                    }
                    cat.alterTable(PaimonStream.ID, changes, false);
                    o.set("options", d.get("options"));
                    break;
                }
                case "paimonWrite": {
                    long idle = d.path("afterConsumerIdleMillis").asLong(0);
                    Path cf = consumerFile(w, st.consumer);
                    if (idle > 0 && Files.exists(cf)) {
                        long mtime = Files.getLastModifiedTime(cf).toMillis();
                        Flink.await("consumer file idle " + idle + " ms", Duration.ofSeconds(60),
                                () -> System.currentTimeMillis() > mtime + idle);
                    }
                    int n = d.path("batches").asInt(1);
                    ArrayNode made = o.putArray("commits");
                    for (int i = 0; i < n; i++) {
                        FileStoreTable t = PaimonStream.table(cat); // fresh: options as altered
                        int b = st.nextBatch++;
                        Long before = t.snapshotManager().latestSnapshotId();
                        BatchWriteBuilder wb = t.newBatchWriteBuilder();
                        try (BatchTableWrite wr = wb.newWrite(); BatchTableCommit cm = wb.newCommit()) {
                            for (long r = 0; r < st.per; r++) {
                                wr.write(GenericRow.of((long) b * st.per + r, b));
                            }
                            cm.commit(wr.prepareCommit());
                        }
                        // the commit's APPEND snapshot (a compaction may follow it in the same commit)
                        long s = -1;
                        for (long x = (before == null ? 0 : before) + 1; x <= t.snapshotManager().latestSnapshotId(); x++) {
                            if (t.snapshotManager().snapshotExists(x)
                                    && t.snapshotManager().snapshot(x).commitKind() == Snapshot.CommitKind.APPEND) {
                                s = x;
                                break;
                            }
                        }
                        if (s < 0) {
                            throw new Scenarios.Mismatch("harness: the commit of batch " + b + " left no APPEND snapshot");
                        }
                        Commit c = new Commit();
                        c.snapshot = s;
                        c.time = t.snapshotManager().snapshot(s).timeMillis();
                        c.batch = b;
                        st.commits.add(c);
                        made.addObject().put("snapshot", s).put("batch", b);
                    }
                    break;
                }
                case "paimonExpireSnapshots": {
                    FileStoreTable t = PaimonStream.table(cat);
                    ExpireConfig cfg = ExpireConfig.builder()
                            .snapshotRetainMax(d.path("retainMax").asInt(Integer.MAX_VALUE))
                            .snapshotRetainMin(d.path("retainMin").asInt(1))
                            .build();
                    o.put("expired", t.newExpireSnapshots().config(cfg).expire());
                    break;
                }
                case "paimonRollback": {
                    FileStoreTable t = PaimonStream.table(cat);
                    long to = st.consumerNext - d.path("belowConsumer").asLong(3);
                    if (to < 1) {
                        throw new Scenarios.Mismatch("harness: the killed reader's consumer is at " + st.consumerNext + ", too low to roll back "
                                + d.path("belowConsumer").asLong(3) + " below it");
                    }
                    t.rollbackTo(to);
                    for (Commit c : st.commits) {
                        if (!c.rolledBack && c.snapshot > to) {
                            c.rolledBack = true;
                        }
                    }
                    o.put("rolled_back_to", to);
                    break;
                }
                default:
                    throw new IllegalArgumentException("unknown damage " + op);
            }
            FileStoreTable t = PaimonStream.table(cat);
            o.put("earliest", t.snapshotManager().earliestSnapshotId());
            o.put("latest", t.snapshotManager().latestSnapshotId());
            Optional<Consumer> c = new ConsumerManager(t.fileIO(), t.location()).consumer(st.consumer);
            o.put("consumer", c.map(x -> (Object) x.nextSnapshot()).orElse("none").toString());
        }
    }

    /** The snapshot range [from, to] a warning of the decision names, or null. */
    static long[] reportedRange(JsonNode chosen) {
        JsonNode pos = chosen.path("position");
        if (pos.path("replay_from").asLong(0) > 0) {
            return new long[] {pos.get("replay_from").asLong(), pos.path("consumer_next_snapshot").asLong() - 1};
        }
        Pattern p = Pattern.compile("snapshots? (\\d+)(?:\\.\\.(\\d+))?");
        for (JsonNode wn : chosen.path("warnings")) {
            String code = wn.path("code").asText();
            if (code.equals("paimon.expired-before-read") || code.equals("paimon.possible-loss") || code.equals("paimon.loss-by-tag")) {
                Matcher m = p.matcher(wn.path("text").asText(""));
                if (m.find()) {
                    long a = Long.parseLong(m.group(1));
                    return new long[] {a, m.group(2) == null ? a : Long.parseLong(m.group(2))};
                }
            }
        }
        return null;
    }

    /** Starts the new reader exactly from the decision's options and judges what it skipped. */
    static void launch(Path w, JsonNode sc, ObjectNode job, JsonNode chosen, Configuration tconf, MiniCluster mc,
                       ObjectNode fl, List<String> resolveArgs) throws Exception {
        State st = STATES.get(w);
        String grade = chosen.path("guarantee").asText();
        long start = chosen.path("position").path("next_snapshot").asLong(-1);
        Map<String, String> hints = PaimonStream.map(chosen.path("launch").path("options"));
        fl.set("hints", Flink.JSON.valueToTree(hints));
        if (!chosen.path("launch").path("args").isEmpty()) {
            throw new Scenarios.Mismatch("a consumer start must not restore state, but the launch has args " + chosen.path("launch").path("args"));
        }
        try (Catalog cat = PaimonStream.catalog(wh(w))) {
            FileStoreTable t = PaimonStream.table(cat);
            long paimonStart = PaimonInterop.firstSnapshotRead(t, hints);
            fl.put("paimon_stream_scan_starts", paimonStart);
            fl.put("earliest_snapshot", t.snapshotManager().earliestSnapshotId());
            fl.put("latest_snapshot", t.snapshotManager().latestSnapshotId());
            if (paimonStart != start) {
                throw new Scenarios.Mismatch("resumekit starts at snapshot " + start + ", Paimon's stream scan with the decision's options "
                        + hints + " starts at " + paimonStart);
            }
        }
        // the live batches (not removed by a rollback) the new reader must read: snapshot >= start
        List<Commit> live = new ArrayList<>();
        for (Commit c : st.commits) {
            if (!c.rolledBack) {
                live.add(c);
            }
        }
        Path journal = w.resolve("stage-0/journal");
        Files.createDirectories(journal);
        List<Path> dirs = List.of(w.resolve("journal"), journal);
        JobGraph jg = PaimonStream.sqlJob(tconf, job, Flink.JSON.createObjectNode(), hints, journal.toString(), "final0");
        JobID id = new JobID();
        jg.setJobID(id);
        mc.submitJob(jg).get(60, TimeUnit.SECONDS);
        try {
            try {
                Flink.await("every batch from snapshot " + start + " committed by the new reader", Duration.ofSeconds(120), () -> {
                    try {
                        Output o = Output.read(List.of(journal));
                        for (Commit c : live) {
                            if (c.snapshot >= start && delivered(o, c, st.per) < st.per) {
                                return false;
                            }
                        }
                        return true;
                    } catch (Exception e) {
                        return false;
                    }
                });
            } catch (Exception e) {
                fl.put("new_reader_incomplete", Flink.causes(e));
            }
            int have = Flink.completed(mc, id).size();
            Flink.await("2 more checkpoints of the new reader", Duration.ofSeconds(60), () -> Flink.completed(mc, id).size() >= have + 2);
        } finally {
            mc.cancelJob(id).get(30, TimeUnit.SECONDS);
        }
        Output old = Output.read(List.of(w.resolve("journal")));
        Output neu = Output.read(List.of(journal));
        Output all = Output.read(dirs);
        // the truth: live batches no run delivered in full, and what the new reader skipped
        TreeSet<Long> lostSnaps = new TreeSet<>();
        TreeSet<Long> partial = new TreeSet<>();
        long lostIds = 0;
        List<String> problems = new ArrayList<>();
        for (Commit c : live) {
            long got = delivered(all, c, st.per);
            if (got < st.per) {
                lostSnaps.add(c.snapshot);
                lostIds += st.per - got;
                if (got > 0) {
                    partial.add(c.snapshot);
                }
            }
            if (c.snapshot >= start && delivered(neu, c, st.per) < st.per) {
                problems.add("the new reader did not read all of snapshot " + c.snapshot + " (batch " + c.batch + "), at or after resumekit's start " + start);
            }
            if (c.snapshot < start && delivered(neu, c, st.per) > 0) {
                problems.add("the new reader read snapshot " + c.snapshot + " (batch " + c.batch + "), below resumekit's start " + start);
            }
        }
        long dupIds = 0;
        for (List<Output.Copy> cs : all.byId.values()) {
            dupIds += Math.max(0, cs.size() - 1);
        }
        fl.put("lost", lostIds);
        fl.put("duplicated", dupIds);
        fl.set("lost_snapshots", Flink.JSON.valueToTree(lostSnaps));
        if (!partial.isEmpty()) {
            fl.set("lost_snapshots_partly_delivered_by_killed_reader", Flink.JSON.valueToTree(partial));
        }
        // resumekit's reported range, narrowed (for a start by time) to snapshots committed at or after the time
        long[] range = reportedRange(chosen);
        Long from = null;
        int fi = resolveArgs.indexOf("--paimon-from");
        if (fi >= 0 && !chosen.path("position").path("consumer_file").asBoolean()) {
            from = Long.parseLong(resolveArgs.get(fi + 1));
        }
        TreeSet<Long> reported = new TreeSet<>();
        if (range != null) {
            for (Commit c : live) {
                if (c.snapshot >= range[0] && c.snapshot <= range[1] && (from == null || c.time >= from)) {
                    reported.add(c.snapshot);
                }
            }
            fl.set("resumekit_reported_range", Flink.JSON.valueToTree(range));
        }
        fl.set("reported_snapshots", Flink.JSON.valueToTree(reported));
        if (!lostSnaps.isEmpty() && !grade.equals("data-loss")) {
            problems.add("snapshots " + lostSnaps + " (" + lostIds + " ids) are lost, but resumekit graded " + grade);
        }
        for (long s : lostSnaps) {
            if (!reported.contains(s)) {
                problems.add("snapshot " + s + " is lost but outside the range resumekit reported " + reported);
            }
        }
        for (long s : reported) {
            if (!lostSnaps.contains(s)) {
                // only what the killed reader delivered past its consumer file may be in the range and not lost
                Commit c = null;
                for (Commit x : live) {
                    if (x.snapshot == s) {
                        c = x;
                    }
                }
                if (c == null || delivered(old, c, st.per) < st.per) {
                    problems.add("resumekit reported snapshot " + s + " as possibly lost, but the new reader read it");
                }
            }
        }
        if (grade.equals("data-loss") && lostSnaps.isEmpty()) {
            fl.put("note", "graded data-loss, nothing lost");
        }
        if (!problems.isEmpty()) {
            throw new Scenarios.Mismatch(String.join("; ", problems));
        }
        replayStart(w, job, chosen, tconf, hints, fl, st);
    }

    /**
     * The replay start a rollback decision offers (Position.ReplayFrom): its reset_consumer call,
     * run as Flink SQL exactly as resumekit printed it, must make Paimon's stream scan with the
     * decision's options start there, below the snapshots the new reader skipped.
     */
    static void replayStart(Path w, JsonNode job, JsonNode chosen, Configuration tconf, Map<String, String> hints,
                            ObjectNode fl, State st) throws Exception {
        JsonNode pos = chosen.path("position");
        long k = pos.path("replay_from").asLong(0);
        String sql = pos.path("reset_consumer_sql").asText("");
        if (k <= 0 || sql.isEmpty()) {
            return;
        }
        org.apache.flink.table.api.TableEnvironment tEnv = org.apache.flink.table.api.bridge.java.StreamTableEnvironment.create(
                new org.apache.flink.streaming.api.environment.StreamExecutionEnvironment(tconf));
        tEnv.executeSql("CREATE CATALOG pc WITH ('type'='paimon', 'warehouse'='" + wh(w).toUri() + "')");
        tEnv.executeSql("USE CATALOG pc");
        tEnv.executeSql(sql).await(60, TimeUnit.SECONDS);
        fl.put("replay_reset_sql", sql);
        try (Catalog cat = PaimonStream.catalog(wh(w))) {
            FileStoreTable t = PaimonStream.table(cat);
            long next = new ConsumerManager(t.fileIO(), t.location()).consumer(st.consumer).map(Consumer::nextSnapshot).orElse(-1L);
            long starts = PaimonInterop.firstSnapshotRead(t, hints);
            fl.put("replay_consumer_next_snapshot", next);
            fl.put("replay_stream_scan_starts", starts);
            if (next != k || starts != k) {
                throw new Scenarios.Mismatch("after resumekit's " + sql + " Paimon's consumer reads " + next + " and its stream scan starts at "
                        + starts + ", not at the replay start " + k);
            }
        }
    }

    /** How many of the commit's ids the output holds. */
    static long delivered(Output o, Commit c, int per) {
        long n = 0;
        for (long id = (long) c.batch * per; id < (long) (c.batch + 1) * per; id++) {
            if (o.byId.containsKey(id)) {
                n++;
            }
        }
        return n;
    }
}
