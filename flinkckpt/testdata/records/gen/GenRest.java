import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.*;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.highavailability.FileSystemJobResultStore;
import org.apache.flink.runtime.highavailability.JobResultEntry;
import org.apache.flink.runtime.highavailability.JobResultStoreOptions;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.DiscardingSink;

import java.net.URI;
import java.net.http.*;
import java.nio.file.*;
import java.util.concurrent.Executors;

/** Records a real Flink 1.20.3 JobManager's REST answers (MiniCluster) and a real JobResultStore entry. */
public class GenRest {
    static HttpClient http = HttpClient.newHttpClient();
    static String get(URI base, String p) throws Exception {
        return http.send(HttpRequest.newBuilder(base.resolve(p)).build(), HttpResponse.BodyHandlers.ofString()).body();
    }
    public static void main(String[] a) throws Exception {
        Path out = Paths.get(a[0]);
        String work = a[1];
        Files.createDirectories(out);
        Configuration conf = new Configuration();
        conf.set(RestOptions.BIND_PORT, "0");
        conf.set(RestOptions.ADDRESS, "127.0.0.1");
        conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, "file:" + work + "/ck");
        conf.set(CheckpointingOptions.SAVEPOINT_DIRECTORY, "file:" + work + "/sp");
        MiniCluster mc = new MiniCluster(new MiniClusterConfiguration.Builder().setConfiguration(conf).setNumTaskManagers(1).setNumSlotsPerTaskManager(2).build());
        mc.start();
        URI rest = mc.getRestAddress().get();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.enableCheckpointing(300);
        env.setParallelism(1);
        env.fromSequence(0, Long.MAX_VALUE).uid("src").map(x -> { Thread.sleep(2); return x; }).uid("map").returns(Long.class)
            .keyBy(x -> x % 4).reduce(Long::sum).uid("sum").addSink(new DiscardingSink<>()).uid("sink");
        JobGraph jg = env.getStreamGraph().getJobGraph();
        JobID id = jg.getJobID();
        mc.submitJob(jg).get();
        String ck = "";
        for (int i = 0; i < 200; i++) {
            ck = get(rest, "/jobs/" + id + "/checkpoints");
            if (ck.contains("\"completed\":3") || ck.matches(".*\"completed\":[3-9].*")) break;
            Thread.sleep(200);
        }
        String sp = mc.triggerSavepoint(id, "file:" + work + "/sp", false, SavepointFormatType.CANONICAL).get();
        Thread.sleep(700);
        Files.writeString(out.resolve("overview-running.json"), get(rest, "/jobs/overview"));
        Files.writeString(out.resolve("checkpoints.json"), get(rest, "/jobs/" + id + "/checkpoints"));
        String stop = mc.stopWithSavepoint(id, "file:" + work + "/sp", false, SavepointFormatType.CANONICAL).get();
        JobResult res = mc.requestJobResult(id).get();
        Files.writeString(out.resolve("overview-finished.json"), get(rest, "/jobs/overview"));
        Files.writeString(out.resolve("checkpoints-finished.json"), get(rest, "/jobs/" + id + "/checkpoints"));
        Configuration jrsConf = new Configuration();
        jrsConf.set(JobResultStoreOptions.STORAGE_PATH, "file:" + out.resolve("jrs").toAbsolutePath());
        jrsConf.set(JobResultStoreOptions.DELETE_ON_COMMIT, false);
        FileSystemJobResultStore jrs = FileSystemJobResultStore.fromConfiguration(jrsConf, Executors.newSingleThreadExecutor());
        jrs.createDirtyResultAsync(new JobResultEntry(res)).get();
        Files.copy(out.resolve("jrs/" + id + "_DIRTY.json"), out.resolve("jrs-dirty-" + id + "_DIRTY.json"));
        jrs.markResultAsCleanAsync(id).get();
        System.out.println("job " + id + " savepoint " + sp + " stopped " + stop + " status " + res.getApplicationStatus());
        mc.close();
        System.exit(0);
    }
}
