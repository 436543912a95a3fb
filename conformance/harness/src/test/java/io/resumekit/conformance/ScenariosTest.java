package io.resumekit.conformance;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One dynamic test per scenario file in {@code conformance.scenarios} whose {@code set} is in the
 * selected set (smoke ⊂ full) and whose {@code flink} names the Flink line the harness was built for
 * ({@link FlinkLine#LINE}). Writes {@code conformance/target/summary.json}, with the Flink version
 * each scenario ran on.
 */
class ScenariosTest {
    static final ArrayNode RESULTS = Flink.JSON.createArrayNode();

    @TestFactory
    Stream<DynamicTest> scenarios() throws Exception {
        Path dir = Paths.get(System.getProperty("conformance.scenarios"));
        String set = System.getProperty("conformance.set", "smoke");
        String only = System.getProperty("conformance.only", "");
        Path top = Paths.get(System.getProperty("conformance.summaryDir", "../target")).toAbsolutePath();
        Path resumectl = top.resolve("resumectl");
        String export = System.getProperty("conformance.export", "");
        Scenarios runner = new Scenarios(Paths.get("target").toAbsolutePath(), resumectl,
                export.isEmpty() ? null : Paths.get(export).toAbsolutePath());
        List<Path> files = new ArrayList<>();
        try (Stream<Path> s = Files.list(dir)) {
            s.filter(p -> p.toString().endsWith(".json")).sorted().forEach(files::add);
        }
        List<DynamicTest> tests = new ArrayList<>();
        for (Path f : files) {
            JsonNode sc = Flink.JSON.readTree(f.toFile());
            String name = sc.get("name").asText();
            String its = sc.path("set").asText("full");
            List<String> lines = lines(f, sc);
            if (!only.isEmpty() && !List.of(only.split(",")).contains(name)) {
                continue;
            }
            if (only.isEmpty() && set.equals("smoke") && !its.equals("smoke")) {
                continue;
            }
            if (!lines.contains(FlinkLine.LINE)) {
                System.out.println("scenario " + name + ": not on Flink " + FlinkLine.LINE + " (its \"flink\": " + lines + ")");
                continue;
            }
            tests.add(DynamicTest.dynamicTest(name, () -> {
                ObjectNode r = runner.run(f);
                r.put("flink_line", FlinkLine.LINE);
                r.put("flink_version", FlinkLine.version());
                synchronized (RESULTS) {
                    RESULTS.add(r);
                }
                writeSummary(top);
                System.out.println("scenario " + name + ": " + (r.get("passed").asBoolean() ? "passed" : "FAILED: " + r.path("why").asText())
                        + " (" + r.path("seconds").asDouble() + " s)");
                assertTrue(r.get("passed").asBoolean(), name + ": " + r.path("why").asText());
            }));
        }
        if (tests.isEmpty()) {
            throw new IllegalStateException("no scenario selected in " + dir + " (set " + set + ", Flink " + FlinkLine.LINE + ")");
        }
        return tests.stream();
    }

    /**
     * The Flink lines a scenario file runs on: its {@code "flink"} array, each "1.20" or "2.x". Every
     * file must state it (a scenario that cannot run on a line says why in its {@code about}).
     */
    static List<String> lines(Path f, JsonNode sc) {
        JsonNode fl = sc.get("flink");
        if (fl == null || !fl.isArray() || fl.isEmpty()) {
            throw new IllegalArgumentException(f + ": \"flink\" must list the Flink lines the scenario runs on (\"1.20\", \"2.x\")");
        }
        List<String> out = new ArrayList<>();
        for (JsonNode l : fl) {
            if (!List.of("1.20", "2.x").contains(l.asText())) {
                throw new IllegalArgumentException(f + ": unknown Flink line " + l + " in \"flink\" (known: 1.20, 2.x)");
            }
            out.add(l.asText());
        }
        return out;
    }

    static void writeSummary(Path top) throws Exception {
        ObjectNode s = Flink.JSON.createObjectNode();
        s.put("flink", FlinkLine.version());
        s.put("flink_line", FlinkLine.LINE);
        s.set("scenarios", RESULTS);
        Files.createDirectories(top);
        Flink.writeJson(top.resolve("summary.json"), s);
    }

    @AfterAll
    static void done() throws Exception {
        writeSummary(Paths.get(System.getProperty("conformance.summaryDir", "../target")).toAbsolutePath());
    }
}
