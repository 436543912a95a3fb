package io.resumekit.conformance;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.flink.shaded.zookeeper3.org.apache.zookeeper.server.DataNode;
import org.apache.flink.shaded.zookeeper3.org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.flink.shaded.zookeeper3.org.apache.zookeeper.server.ZooKeeperServer;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * A standalone ZooKeeper server inside the harness JVM for the HA oracle ({@code "ha": true}), from
 * the ZooKeeper server classes Flink itself ships (flink-shaded-zookeeper-3): bound to 127.0.0.1 on
 * a free port, its data under the scenario's work dir. The children's MiniClusters use it with
 * {@code high-availability.type: zookeeper}; after the SIGKILL, {@link #expireSessions()} ends the
 * dead JVM's sessions at once (what the session timeout would do later), so the second child's
 * leader election does not wait on the dead one's ephemeral latch node.
 */
public final class ZooKeeperHa implements AutoCloseable {
    final Path dir;
    private final ZooKeeperServer server;
    private final ServerCnxnFactory factory;

    private ZooKeeperHa(Path dir, ZooKeeperServer server, ServerCnxnFactory factory) {
        this.dir = dir;
        this.server = server;
        this.factory = factory;
    }

    /** Starts a server with its snapshot and log dirs under {@code dir}. */
    public static ZooKeeperHa start(Path dir) throws IOException, InterruptedException {
        // No fsync of the transaction log and a small preallocation: on this shared disk an fsync of
        // the 64 MB preallocated log took up to 6 s and stalled every ZooKeeper write (leader
        // election, checkpoint store). Durability across a power loss is not what the oracle tests;
        // the server outlives both children. (Read once, when ZooKeeper's FileTxnLog class loads.)
        System.setProperty("zookeeper.forceSync", "no");
        System.setProperty("zookeeper.preAllocSize", "1024");
        Files.createDirectories(dir.resolve("data"));
        Files.createDirectories(dir.resolve("log"));
        ZooKeeperServer zks = new ZooKeeperServer(dir.resolve("data").toFile(), dir.resolve("log").toFile(), 500);
        // generous client session timeouts (a loaded 2-core machine must not lose leadership); the
        // oracle never waits for them: it expires the killed JVM's sessions itself
        zks.setMinSessionTimeout(1_000);
        zks.setMaxSessionTimeout(60_000);
        ServerCnxnFactory f = ServerCnxnFactory.createFactory(new InetSocketAddress("127.0.0.1", 0), 64);
        try {
            f.startup(zks);
        } catch (IOException | InterruptedException | RuntimeException e) {
            f.shutdown();
            zks.shutdown();
            throw e;
        }
        return new ZooKeeperHa(dir, zks, f);
    }

    /** host:port of the server (loopback). */
    public String quorum() {
        return "127.0.0.1:" + factory.getLocalPort();
    }

    /**
     * The {@code high-availability.*} settings of a child: this quorum, the cluster id, HA storage
     * under {@code storage}. A run's child and the HA recovery of its job get the same values.
     */
    public ObjectNode settings(Path storage, String clusterId) {
        ObjectNode o = Flink.JSON.createObjectNode();
        o.put("high-availability.type", "zookeeper");
        o.put("high-availability.zookeeper.quorum", quorum());
        o.put("high-availability.storageDir", Scenarios.flinkUri(storage));
        o.put("high-availability.cluster-id", "/" + clusterId);
        o.put("high-availability.zookeeper.path.root", "/flink");
        o.put("high-availability.zookeeper.client.session-timeout", "30000");
        return o;
    }

    /**
     * Expires every open session (after the SIGKILL only the dead child's are open) and waits until
     * the server has closed them (their ephemeral nodes deleted); returns how many.
     */
    public int expireSessions() throws Exception {
        List<Long> ids = new ArrayList<>(server.getZKDatabase().getSessions());
        for (long id : ids) {
            server.expire(id);
        }
        Flink.await("ZooKeeper to close " + ids.size() + " expired sessions", Duration.ofSeconds(30),
                () -> server.getZKDatabase().getSessionCount() == 0);
        return ids.size();
    }

    /**
     * The checkpoint ids Flink's ZooKeeper completed-checkpoint store holds for a job: the children
     * of every {@code checkpoints} node below a node named after the job id (Flink names them by the
     * zero-padded checkpoint id), read from the server's own tree.
     */
    public List<Long> storedCheckpoints(String jobId) {
        List<Long> out = new ArrayList<>();
        walk("/", false, jobId, out);
        Collections.sort(out);
        return out;
    }

    /**
     * Whether Flink's ZooKeeper JobGraphStore holds the job: a {@code jobgraphs} node (Flink 1.20) or an
     * {@code execution-plans} node (Flink 2.x's ExecutionPlanStore, high-availability.zookeeper.path.execution-plans)
     * with a child named after it.
     */
    public boolean holdsJobGraph(String jobId) {
        return holds("/", "jobgraphs", jobId) || holds("/", "execution-plans", jobId);
    }

    private boolean holds(String path, String parentName, String child) {
        DataNode n = server.getZKDatabase().getDataTree().getNode(path);
        if (n == null) {
            return false;
        }
        Set<String> children;
        synchronized (n) {
            children = new TreeSet<>(n.getChildren());
        }
        if (path.endsWith("/" + parentName) && children.contains(child)) {
            return true;
        }
        for (String c : children) {
            if (holds(path.equals("/") ? "/" + c : path + "/" + c, parentName, child)) {
                return true;
            }
        }
        return false;
    }

    private void walk(String path, boolean underJob, String jobId, List<Long> out) {
        DataNode n = server.getZKDatabase().getDataTree().getNode(path);
        if (n == null) {
            return;
        }
        String name = path.substring(path.lastIndexOf('/') + 1);
        boolean job = underJob || name.equals(jobId);
        Set<String> children;
        synchronized (n) {
            children = new TreeSet<>(n.getChildren());
        }
        for (String c : children) {
            if (job && name.equals("checkpoints") && c.matches("[0-9]+")) {
                out.add(Long.parseLong(c));
            } else {
                walk(path.equals("/") ? "/" + c : path + "/" + c, job, jobId, out);
            }
        }
    }

    @Override
    public void close() {
        factory.shutdown();
        server.shutdown();
    }
}
