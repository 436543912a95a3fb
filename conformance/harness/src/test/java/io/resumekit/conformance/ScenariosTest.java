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
 * selected set (smoke ⊂ full). Writes {@code conformance/target/summary.json}.
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
            if (!only.isEmpty() && !List.of(only.split(",")).contains(name)) {
                continue;
            }
            if (only.isEmpty() && set.equals("smoke") && !its.equals("smoke")) {
                continue;
            }
            tests.add(DynamicTest.dynamicTest(name, () -> {
                ObjectNode r = runner.run(f);
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
            throw new IllegalStateException("no scenario selected in " + dir + " (set " + set + ")");
        }
        return tests.stream();
    }

    static void writeSummary(Path top) throws Exception {
        ObjectNode s = Flink.JSON.createObjectNode();
        s.put("flink", "1.20.3");
        s.set("scenarios", RESULTS);
        Files.createDirectories(top);
        Flink.writeJson(top.resolve("summary.json"), s);
    }

    @AfterAll
    static void done() throws Exception {
        writeSummary(Paths.get(System.getProperty("conformance.summaryDir", "../target")).toAbsolutePath());
    }
}
