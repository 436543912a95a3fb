package io.resumekit.conformance;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The output judge on F9's branched history, without Flink: run 0 emits ids 0..7 (its checkpoint 5
 * covers them), run 1 restores run 0's savepoint 3 (ids below 4) and emits 4..9 under its own
 * checkpoints 4 and 5, which Flink cannot restore; the new job restores run 0's checkpoint 5 and
 * emits 8..9. Run 1's whole output is of the abandoned branch.
 */
class OutputTest {
    @TempDir
    Path dir;

    static void journal(Path d, String name, long... idEpoch) throws Exception {
        Files.createDirectories(d);
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < idEpoch.length; i += 2) {
            lines.add(idEpoch[i] + ",0," + (idEpoch[i] + 1) + "," + idEpoch[i + 1]);
        }
        Files.write(d.resolve(name), lines);
    }

    @Test
    void abandonedBranchIsSupersededNotDeliveredTwice() throws Exception {
        Path runs = dir.resolve("journal");
        Path fin = dir.resolve("final");
        journal(runs, "run0-a", 0, 1, 1, 1, 2, 2, 3, 2, 4, 4, 5, 4, 6, 5, 7, 5);
        journal(runs, "run1-a", 4, 4, 5, 4, 6, 4, 7, 5, 8, 5, 9, 5);
        journal(fin, "final2-a", 8, 6, 9, 6);
        Output o = Output.read(List.of(runs, fin));
        List<Long> restorePoints = Arrays.asList(null, 3L);
        ObjectNode v = o.judge(10, 1, restorePoints, 5L, 0, "exactly-once");
        assertFalse(v.has("mismatch"), v.toString());
        assertEquals(0, v.get("delivered_twice").asLong(), v.toString());
        assertEquals(6, v.get("duplicated_by_new_job").asLong(), v.toString());
        assertTrue(v.get("state_continued").asBoolean(), v.toString());
        // without knowing the restored run, run 1's ids 8 and 9 count as delivered twice
        ObjectNode old = o.judge(10, 1, restorePoints, 5L, "exactly-once");
        assertEquals(2, old.get("delivered_twice").asLong(), old.toString());
    }
}
