package io.resumekit.conformance;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A FlinkNode in its own JVM. {@link #kill()} is SIGKILL ({@code destroyForcibly}); every child
 * started is also killed by a shutdown hook, so none outlives the harness.
 */
public final class ChildJvm implements AutoCloseable {
    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly)));
    }

    final Process process;
    final Path control;

    private ChildJvm(Process p, Path control) {
        this.process = p;
        this.control = control;
    }

    /** The harness's runtime classpath: target/classes plus target/harness.classpath. */
    static String classpath() throws IOException {
        Path target = Paths.get(System.getProperty("conformance.target", "target")).toAbsolutePath();
        String deps = Files.readString(target.resolve("harness.classpath")).trim();
        return target.resolve("classes") + File.pathSeparator + deps;
    }

    /**
     * The classpath of a child on the Flink line {@code line} ("1.20" or "2.x"): the harness's own
     * for its line (null or {@link FlinkLine#LINE}), else conformance/crossline's — the harness's
     * sources compiled against the other line, target/classes plus target/crossline.classpath, which
     * conformance/run builds when a selected scenario has a run {@code "onFlink"} the other line.
     */
    static String classpath(String line) throws IOException {
        if (line == null || line.isEmpty() || line.equals(FlinkLine.LINE)) {
            return classpath();
        }
        if (!List.of("1.20", "2.x").contains(line)) {
            throw new IllegalArgumentException("unknown Flink line \"" + line + "\" (known: 1.20, 2.x)");
        }
        Path target = Paths.get(System.getProperty("conformance.target", "target")).toAbsolutePath();
        Path x = Paths.get(System.getProperty("conformance.crosslineDir",
                target.getParent().resolveSibling("crossline").resolve("target").toString()));
        Path cpFile = x.resolve("crossline.classpath");
        if (!Files.exists(cpFile) || !Files.isDirectory(x.resolve("classes"))) {
            throw new IllegalStateException("no Flink " + line + " classpath at " + x + ": conformance/run builds"
                    + " conformance/crossline (-Dconformance.crossline=true) when a selected scenario has a run on the other line");
        }
        String deps = Files.readString(cpFile).trim();
        String runtime = line.equals("2.x") ? "flink-runtime-2." : "flink-runtime-1.20.";
        if (!deps.contains(runtime)) {
            throw new IllegalStateException(cpFile + " is not Flink " + line + "'s (no " + runtime + "* jar):"
                    + " conformance/run rebuilds conformance/crossline for the line it runs");
        }
        return x.resolve("classes") + File.pathSeparator + deps;
    }

    public static ChildJvm start(String mainClass, Path spec, Path control) throws IOException {
        return start(mainClass, spec, control, null);
    }

    /** Starts mainClass SPEC in a child JVM on the Flink line {@code line} (null: the harness's; {@link #classpath(String)}). */
    public static ChildJvm start(String mainClass, Path spec, Path control, String line) throws IOException {
        Files.createDirectories(control);
        List<String> cmd = new ArrayList<>();
        cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-Xmx640m");
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.add("-Djava.io.tmpdir=" + control.resolve("tmp"));
        Files.createDirectories(control.resolve("tmp"));
        cmd.addAll(Arrays.asList(System.getProperty("conformance.jvmOpens", "").trim().split("\\s+")));
        cmd.removeIf(String::isEmpty);
        cmd.add("-cp");
        cmd.add(classpath(line));
        cmd.add(mainClass);
        cmd.add(spec.toString());
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.redirectOutput(control.resolve("stdout.log").toFile());
        pb.redirectError(control.resolve("stderr.log").toFile());
        Process p = pb.start();
        LIVE.add(p);
        Files.writeString(control.resolve("pid"), Long.toString(p.pid()));
        return new ChildJvm(p, control);
    }

    /** Waits until control/name exists; fails early when the child dies first. */
    public void awaitMarker(String name, Duration timeout) throws Exception {
        long end = System.nanoTime() + timeout.toNanos();
        while (!Files.exists(control.resolve(name))) {
            if (!process.isAlive() && !Files.exists(control.resolve(name))) {
                throw new IllegalStateException("child JVM exited " + process.exitValue() + " before " + name
                        + "; " + tail(control.resolve("facts.json")) + " stderr: " + tail(control.resolve("stderr.log")));
            }
            if (System.nanoTime() > end) {
                throw new IllegalStateException("timed out after " + timeout + " waiting for " + name
                        + " stderr: " + tail(control.resolve("stderr.log")));
            }
            Thread.sleep(50);
        }
    }

    static String tail(Path p) {
        try {
            String s = Files.readString(p);
            return s.length() > 3000 ? s.substring(s.length() - 3000) : s;
        } catch (IOException e) {
            return "(no " + p.getFileName() + ")";
        }
    }

    /** SIGKILL, and wait (bounded) until the process is gone. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("child JVM did not die within 30 s of SIGKILL");
        }
        LIVE.remove(process);
    }

    public int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            kill();
            throw new IllegalStateException("child JVM still running after " + timeout);
        }
        LIVE.remove(process);
        return process.exitValue();
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill();
        }
        LIVE.remove(process);
    }
}
