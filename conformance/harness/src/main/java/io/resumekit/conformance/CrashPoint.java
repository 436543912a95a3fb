package io.resumekit.conformance;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Deterministic crash points inside a child JVM, armed by marker files the FlinkNode main writes:
 * {@code <control>/arm-block} makes subtask 0 of the {@code block} operator block in its next
 * snapshotState (after touching {@code blocked-<checkpointId>}); {@code <control>/arm-commit-halt}
 * halts the JVM (exit 137, like SIGKILL) right after the journal sink's next commit.
 */
public final class CrashPoint {
    private CrashPoint() {}

    static Path control() {
        String c = System.getProperty("conformance.control");
        return c == null ? null : Paths.get(c);
    }

    static void maybeBlock(long checkpointId, int subtask) {
        Path c = control();
        if (c == null || subtask != 0 || !Files.exists(c.resolve("arm-block"))) {
            return;
        }
        try {
            Files.deleteIfExists(c.resolve("arm-block"));
            Files.writeString(c.resolve("blocked-" + checkpointId), Long.toString(checkpointId));
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

    static void afterCommit(String journalDir) {
        Path c = control();
        if (c != null && Files.exists(c.resolve("arm-commit-halt"))) {
            Runtime.getRuntime().halt(137);
        }
    }
}
