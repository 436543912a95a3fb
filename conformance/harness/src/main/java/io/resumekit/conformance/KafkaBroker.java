package io.resumekit.conformance;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real single-node KRaft Kafka broker in its own JVM, from the Maven jars the broker module lists
 * in {@code broker/target/broker.classpath} (its kafka-clients never meets the 3.4.0 client that
 * flink-connector-kafka reflects into). Listens on 127.0.0.1 only; {@link #close()} SIGKILLs it.
 */
public final class KafkaBroker implements AutoCloseable {
    private static final Object LOCK = new Object();
    private static KafkaBroker shared;
    private static int starts;

    final Process process;
    final int port;
    final Path dir;

    private KafkaBroker(Process p, int port, Path dir) {
        this.process = p;
        this.port = port;
        this.dir = dir;
    }

    public String bootstrap() {
        return "127.0.0.1:" + port;
    }

    /** One broker per harness JVM, started on first use and killed at exit. */
    public static KafkaBroker shared(Path root) throws Exception {
        synchronized (LOCK) {
            if (shared == null || !shared.process.isAlive()) {
                String died = shared == null ? "" : "the previous broker (" + shared.dir + ") exited "
                        + shared.process.exitValue() + ": " + ChildJvm.tail(shared.dir.resolve("broker.log"));
                if (!died.isEmpty()) {
                    System.err.println("kafka: " + died);
                }
                // a restarted broker gets a fresh directory: its KRaft log dir must be unformatted
                shared = start(root.resolve(starts++ == 0 ? "kafka" : "kafka-" + starts));
                KafkaBroker b = shared;
                Runtime.getRuntime().addShutdownHook(new Thread(b.process::destroyForcibly));
            }
            return shared;
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    static KafkaBroker start(Path dir) throws Exception {
        Scenarios.deleteTree(dir);
        Files.createDirectories(dir.resolve("logs"));
        Path target = Paths.get(System.getProperty("conformance.target", "target")).toAbsolutePath();
        Path cpFile = target.getParent().getParent().resolve("broker/target/broker.classpath");
        String cp = Files.readString(cpFile).trim();
        int port = freePort();
        int cport = freePort();
        String props = String.join("\n",
                "process.roles=broker,controller",
                "node.id=1",
                "controller.quorum.voters=1@127.0.0.1:" + cport,
                "listeners=PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + cport,
                "advertised.listeners=PLAINTEXT://127.0.0.1:" + port,
                "controller.listener.names=CONTROLLER",
                "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                "inter.broker.listener.name=PLAINTEXT",
                "log.dirs=" + dir.resolve("logs"),
                "offsets.topic.replication.factor=1",
                "offsets.topic.num.partitions=1",
                "transaction.state.log.replication.factor=1",
                "transaction.state.log.min.isr=1",
                "transaction.state.log.num.partitions=1",
                "group.initial.rebalance.delay.ms=0",
                "transaction.max.timeout.ms=3600000",
                "auto.create.topics.enable=false",
                "log.retention.check.interval.ms=1000",
                "num.network.threads=2",
                "num.io.threads=2",
                "background.threads=2",
                "");
        Path pf = dir.resolve("server.properties");
        Files.writeString(pf, props);
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        List<String> base = new ArrayList<>(List.of(java, "-XX:+UseSerialGC", "-Xmx384m", "-XX:TieredStopAtLevel=1",
                "-Dlog4j2.configurationFile=" + writeLog4j(dir), "-cp", cp));
        // One retry with a new cluster id and an empty log dir; the first failure is printed (a CI run
        // once failed here with only the tool's SLF4J banner to show for it).
        String failed = format(base, pf, dir);
        if (failed != null) {
            System.err.println("kafka: " + failed + " (retrying once)");
            Scenarios.deleteTree(dir.resolve("logs"));
            Files.createDirectories(dir.resolve("logs"));
            failed = format(base, pf, dir);
            if (failed != null) {
                throw new IllegalStateException(failed);
            }
        }
        List<String> run = new ArrayList<>(base);
        run.addAll(List.of("kafka.Kafka", pf.toString()));
        Process p = new ProcessBuilder(run).redirectErrorStream(true).redirectOutput(dir.resolve("broker.log").toFile()).start();
        Files.writeString(dir.resolve("pid"), Long.toString(p.pid()));
        KafkaBroker b = new KafkaBroker(p, port, dir);
        long end = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (true) {
            if (!p.isAlive()) {
                throw new IllegalStateException("kafka broker exited " + p.exitValue() + ": " + ChildJvm.tail(dir.resolve("broker.log")));
            }
            if (ready(port)) {
                break;
            }
            if (System.nanoTime() > end) {
                p.destroyForcibly();
                throw new IllegalStateException("kafka broker not up within 120 s: " + ChildJvm.tail(dir.resolve("broker.log")));
            }
            Thread.sleep(100);
        }
        return b;
    }

    /**
     * Formats the KRaft log dir with {@code kafka.tools.StorageTool}: null when it succeeded, else what
     * failed with the tool's output. Static voters (controller.quorum.voters), so no --standalone:
     * Kafka 4 refuses it with static voters. The cluster id is made as Kafka's Uuid.randomUuid() makes
     * one: 16 random bytes, base64url without padding, never starting with '-' (the tool would read it
     * as an option).
     */
    static String format(List<String> base, Path pf, Path dir) throws Exception {
        String clusterId;
        do {
            byte[] id = new byte[16];
            new java.security.SecureRandom().nextBytes(id);
            clusterId = java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(id);
        } while (clusterId.startsWith("-"));
        List<String> format = new ArrayList<>(base);
        format.addAll(List.of("kafka.tools.StorageTool", "format", "-t", clusterId, "-c", pf.toString()));
        Path log = dir.resolve("format.log");
        Process f = new ProcessBuilder(format).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!f.waitFor(120, TimeUnit.SECONDS)) {
            f.destroyForcibly();
            return "kafka StorageTool format in " + dir + " did not end within 120 s: " + ChildJvm.tail(log);
        }
        if (f.exitValue() != 0) {
            // the SLF4J banner comes first; the cause is the rest
            return "kafka StorageTool format in " + dir + " (cluster id " + clusterId + ") exited " + f.exitValue()
                    + ": " + ChildJvm.tail(log).replaceAll("(?m)^SLF4J: .*\\R", "");
        }
        return null;
    }

    /** The broker answers a DescribeCluster (its log has no binding to tell it started). */
    static boolean ready(int port) {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            // listening
        } catch (IOException e) {
            return false;
        }
        java.util.Properties p = new java.util.Properties();
        p.put("bootstrap.servers", "127.0.0.1:" + port);
        p.put("request.timeout.ms", "3000");
        p.put("default.api.timeout.ms", "5000");
        try (org.apache.kafka.clients.admin.Admin a = org.apache.kafka.clients.admin.Admin.create(p)) {
            return !a.describeCluster().nodes().get(6, TimeUnit.SECONDS).isEmpty();
        } catch (Exception e) {
            return false;
        }
    }

    static String writeLog4j(Path dir) throws IOException {
        Path p = dir.resolve("log4j2.properties");
        Files.writeString(p, String.join("\n",
                "status = warn",
                "appender.out.type = Console",
                "appender.out.name = out",
                "appender.out.layout.type = PatternLayout",
                "appender.out.layout.pattern = [%d] %p %m (%c)%n",
                "rootLogger.level = WARN",
                "rootLogger.appenderRef.out.ref = out",
                "logger.server.name = kafka.server.KafkaRaftServer",
                "logger.server.level = INFO",
                "logger.kafka.name = kafka.server.KafkaServer",
                "logger.kafka.level = INFO",
                "logger.broker.name = kafka.server.BrokerServer",
                "logger.broker.level = INFO",
                ""));
        return p.toString();
    }

    @Override
    public void close() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    static String cp(List<String> parts) {
        return String.join(File.pathSeparator, parts);
    }
}
