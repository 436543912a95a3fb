package io.resumekit.conformance;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Deterministic crash points inside a child JVM, armed by marker files the FlinkNode main writes:
 * {@code <control>/arm-block} makes subtask 0 of the {@code block} operator block in its next
 * snapshotState whose previous checkpoint this subtask has seen resolved (notified complete or
 * aborted), after touching {@code blocked-<checkpointId>} (content: that resolved id). Since
 * {@code block} is chained before the sink and Flink notifies a chain tail first, the sink's
 * committer of subtask 0 has then committed every completed checkpoint: the crash lands mid-checkpoint
 * and never between a checkpoint's {@code _metadata} and its commit (that is F13's crash point).
 * Every {@code block} subtask records the newest checkpoint it saw resolved in
 * {@code resolved-<subtask>}, so the parent can wait for the other subtasks' commits too.
 * {@code <control>/arm-commit-halt} halts the JVM (exit 137, like SIGKILL) at the start of the
 * journal sink's next non-empty commit, before it writes anything: the checkpoint is complete, its
 * transactions prepared and not committed.
 */
public final class CrashPoint {
    private CrashPoint() {}

    static Path control() {
        String c = System.getProperty("conformance.control");
        return c == null ? null : Paths.get(c);
    }

    /**
     * Blocks subtask 0 when armed and every checkpoint it snapshotted before {@code checkpointId}
     * (the newest being {@code lastSnapshotted}) is resolved ({@code lastResolved}); otherwise
     * returns and the next checkpoint is tried.
     */
    static void maybeBlock(long checkpointId, int subtask, long lastSnapshotted, long lastResolved) {
        Path c = control();
        if (c == null || subtask != 0 || !Files.exists(c.resolve("arm-block"))) {
            return;
        }
        if (lastResolved < lastSnapshotted) {
            return; // the previous checkpoint's commit has not run here yet: not this one
        }
        try {
            Files.deleteIfExists(c.resolve("arm-block"));
            Files.writeString(c.resolve("blocked-" + checkpointId), Long.toString(lastResolved));
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
        // Block until the parent kills this JVM; the checkpoint stays in progress.
        while (true) {
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                // Flink interrupts a blocked task on cancel; keep blocking: only SIGKILL ends it.
            }
        }
    }

    /** Records that this {@code block} subtask saw checkpoint {@code id} resolved (complete or aborted). */
    static void resolved(long id, int subtask) {
        Path c = control();
        if (c == null) {
            return;
        }
        try {
            Path tmp = c.resolve(".resolved-" + subtask + ".tmp");
            Files.writeString(tmp, Long.toString(id));
            Files.move(tmp, c.resolve("resolved-" + subtask), java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
    }

    /** The newest checkpoint {@code block} subtask {@code subtask} saw resolved, or -1. */
    static long resolvedOf(Path control, int subtask) {
        try {
            return Long.parseLong(Files.readString(control.resolve("resolved-" + subtask)).trim());
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
    }

    /** Halts the JVM before a non-empty commit when armed (F13: after {@code _metadata}, before commit). */
    static void beforeCommit(int requests) {
        Path c = control();
        if (c != null && requests > 0 && Files.exists(c.resolve("arm-commit-halt"))) {
            try {
                Files.writeString(c.resolve("commit-halted"), Integer.toString(requests));
            } catch (IOException e) {
                // halting anyway: the marker only explains the exit
            }
            Runtime.getRuntime().halt(137);
        }
    }
}
