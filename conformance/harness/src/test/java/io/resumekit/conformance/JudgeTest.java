package io.resumekit.conformance;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The judge's ordering and loss reading, without Flink. */
class JudgeTest {
    static Scenarios.Snap snap(String dir, String job, long id) {
        Scenarios.Snap s = new Scenarios.Snap();
        s.dir = Paths.get(dir);
        s.jobId = job;
        s.id = id;
        s.hasMetadata = true;
        return s;
    }

    /**
     * One job dir holding two runs: run 1 restored from a savepoint of id 3 and continued at 4, below
     * run 0's chk-7. The newest is run 1's chk-5, not the higher id (as resumekit orders by run).
     */
    @Test
    void jobDirWithTwoRunsIsOrderedByRun() throws Exception {
        String job = "a0000000000000000000000000000001";
        Scenarios.Snap old7 = snap("/w/ck/" + job + "/chk-7", job, 7);
        Scenarios.Snap new5 = snap("/w/ck/" + job + "/chk-5", job, 5);
        Scenarios.Snap new4 = snap("/w/ck/" + job + "/chk-4", job, 4);
        List<Scenarios.Snap> snaps = new ArrayList<>(List.of(old7, new5, new4));
        List<JsonNode> runs = List.of(
                Flink.JSON.readTree("{\"completed\": [{\"id\": 7, \"savepoint\": false, \"path\": \"file:/w/ck/" + job + "/chk-7\"}]}"),
                Flink.JSON.readTree("{\"completed\": [{\"id\": 4, \"savepoint\": false, \"path\": \"file:/w/ck/" + job + "/chk-4\"},"
                        + " {\"id\": 5, \"savepoint\": false, \"path\": \"file:/w/ck/" + job + "/chk-5\"}]}"));
        Scenarios.assignRuns(snaps, runs);
        assertEquals(0, old7.run);
        assertEquals(1, new5.run);
        assertTrue(Scenarios.newer(new5, old7), "run 1's chk-5 must be newer than run 0's chk-7");
        assertFalse(Scenarios.newer(old7, new4));
        assertTrue(Scenarios.newer(new5, new4), "within a run the higher id");
        assertSame(new5, Scenarios.newestCheckpoint(snaps));
        snaps.sort(Scenarios.LINEAGE);
        assertEquals(List.of(old7, new4, new5), snaps);
    }

    /** Without run facts (a dir no run reported) the ids of one job dir decide, as before. */
    @Test
    void oneRunIsOrderedById() throws Exception {
        Scenarios.Snap a = snap("/w/ck/j/chk-9", "j", 9);
        Scenarios.Snap b = snap("/w/ck/j/chk-10", "j", 10);
        assertTrue(Scenarios.newer(b, a));
        assertSame(b, Scenarios.newestCheckpoint(List.of(a, b)));
    }

    /** A committed-offsets position: from the commit (or 0 from the log start) up to the start. */
    @Test
    void lossFromCommittedOffsetsPosition() throws Exception {
        JsonNode pos = Flink.JSON.readTree("{\"mode\": \"group-offsets\", \"partitions\": ["
                + "{\"topic\": \"t\", \"partition\": 0, \"committed\": 2, \"offset\": 4, \"from\": \"log-start\"},"
                + "{\"topic\": \"t\", \"partition\": 1, \"committed\": null, \"offset\": 2, \"from\": \"log-start\"},"
                + "{\"topic\": \"t\", \"partition\": 2, \"committed\": 5, \"offset\": 5, \"from\": \"committed\"}]}");
        assertEquals(new TreeSet<>(List.of(6L, 9L, 1L, 4L)), KafkaScenario.reportedLost(pos, 3));
    }

    /** A salvage position: each source partition's lost records lie just below its log start. */
    @Test
    void lossFromSalvagePosition() throws Exception {
        JsonNode pos = Flink.JSON.readTree("{\"snapshot\": \"file:/w/ck/j/chk-3\", \"checkpoint_id\": 3, \"sources\": ["
                + "{\"operator_id\": \"x\", \"uid\": \"src\", \"kind\": \"kafka\", \"options\": {}, \"positions\": ["
                + "{\"topic\": \"t\", \"partition\": 0, \"offset\": 4, \"log_start\": 6, \"lost\": 2},"
                + "{\"topic\": \"t\", \"partition\": 1, \"offset\": 3, \"log_start\": 0},"
                + "{\"topic\": \"t\", \"partition\": 2, \"offset\": 2, \"marker\": \"earliest\", \"resolved\": true, \"log_start\": 2, \"lost\": 2}]}]}");
        assertEquals(new TreeSet<>(List.of(12L, 15L, 2L, 5L)), KafkaScenario.reportedLost(pos, 3));
    }
}
