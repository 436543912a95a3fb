import org.apache.flink.api.common.JobID;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.core.fs.Path;
import org.apache.flink.kubernetes.highavailability.KubernetesStateHandleStore.StateHandleWithDeleteMarker;
import org.apache.flink.runtime.checkpoint.*;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.persistence.filesystem.FileSystemStateStorageHelper;
import org.apache.flink.runtime.state.*;
import org.apache.flink.runtime.state.filesystem.FileStateHandle;
import org.apache.flink.runtime.state.filesystem.FsCompletedCheckpointStorageLocation;
import org.apache.flink.runtime.state.memory.ByteStreamStateHandle;
import org.apache.flink.util.InstantiationUtil;

import java.nio.file.*;
import java.util.*;

/** Writes Flink 1.20.3 HA store bytes: CompletedCheckpoint files (FileSystemStateStorageHelper), the
 * ZooKeeper node data of each (the serialized RetrievableStreamStateHandle), and a kubectl ConfigMap
 * list whose values are the base64 StateHandleWithDeleteMarker around the same handles. */
public class GenHa {
    public static void main(String[] a) throws Exception {
        Path storage = new Path(a[0]);           // HA storage dir URI, e.g. file:/x/ha
        java.nio.file.Path out = Paths.get(a[1]); // where zk node files and configmaps.json go
        String ckRoot = a[2];                    // the checkpoint dir URI of the job
        JobID job = JobID.fromHexString(a[3]);
        String cluster = a[4];
        long[] ids = Arrays.stream(a[5].split(",")).mapToLong(Long::parseLong).toArray();
        boolean lastSavepoint = a.length > 6 && a[6].equals("savepoint");
        Files.createDirectories(out);
        FileSystemStateStorageHelper<CompletedCheckpoint> helper = new FileSystemStateStorageHelper<>(storage, "completedCheckpoint");
        StringBuilder data = new StringBuilder();
        for (int i = 0; i < ids.length; i++) {
            long id = ids[i];
            boolean sp = lastSavepoint && i == ids.length - 1;
            String pointer = sp ? ckRoot.replaceAll("/[^/]+/?$", "") + "/savepoint-" + a[3].substring(0, 6) + "-" + id : ckRoot + "/chk-" + id;
            OperatorID op = new OperatorID(7L, 11L);
            OperatorState os = new OperatorState(op, 2, 128);
            os.putState(0, OperatorSubtaskState.builder().setManagedOperatorState(
                new OperatorStreamStateHandle(Collections.singletonMap("offsets", new OperatorStateHandle.StateMetaInfo(new long[]{0L}, OperatorStateHandle.Mode.UNION)),
                    new ByteStreamStateHandle("inline-" + id, new byte[]{1, 2, 3, 4}))).build());
            Map<OperatorID, OperatorState> states = new HashMap<>();
            states.put(op, os);
            FileStateHandle meta = new FileStateHandle(new Path(pointer + "/_metadata"), 1234);
            CompletedCheckpointStorageLocation loc = new FsCompletedCheckpointStorageLocation(null, new Path(pointer), meta, pointer);
            CheckpointProperties props = sp ? CheckpointProperties.forSavepoint(true, SavepointFormatType.CANONICAL)
                : CheckpointProperties.forCheckpoint(CheckpointRetentionPolicy.RETAIN_ON_CANCELLATION);
            long ts = 1764600000000L + id * 1000;
            CompletedCheckpoint cc = new CompletedCheckpoint(job, id, ts, ts + 500, states, null, props, loc, null);
            RetrievableStateHandle<CompletedCheckpoint> h = helper.store(cc);
            String name = String.format("%019d", id);
            Files.write(out.resolve("zk-" + name + ".bin"), InstantiationUtil.serializeObject(h));
            byte[] k8s = InstantiationUtil.serializeObject(new StateHandleWithDeleteMarker<>(h, false));
            if (data.length() > 0) data.append(",\n");
            data.append(String.format("        \"checkpointID-%s\": \"%s\"", name, Base64.getEncoder().encodeToString(k8s)));
        }
        long counter = ids[ids.length - 1] + 1;
        String cm = "{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"List\",\n  \"items\": [\n"
            + "    {\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"" + cluster + "-cluster-config-map\", \"namespace\": \"flink\", \"labels\": {\"app\": \"" + cluster + "\", \"configmap-type\": \"high-availability\", \"type\": \"flink-native-kubernetes\"}},\n"
            + "     \"data\": {\"jobGraph-" + a[3] + "\": \"" + Base64.getEncoder().encodeToString(new byte[]{(byte) 0xac, (byte) 0xed, 0, 5, 0x70}) + "\"}},\n"
            + "    {\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"" + cluster + "-" + a[3] + "-config-map\", \"namespace\": \"flink\",\n"
            + "      \"annotations\": {\"control-plane.alpha.kubernetes.io/leader\": \"{\\\"holderIdentity\\\":\\\"e1f0c2d4-jobmanager\\\",\\\"leaseDuration\\\":15.0,\\\"acquireTime\\\":\\\"2026-12-01T10:00:00.000000Z\\\",\\\"renewTime\\\":\\\"2026-12-01T10:05:00.000000Z\\\",\\\"leaderTransitions\\\":0}\"},\n"
            + "      \"labels\": {\"app\": \"" + cluster + "\", \"configmap-type\": \"high-availability\", \"type\": \"flink-native-kubernetes\"}},\n"
            + "     \"data\": {\n        \"counter\": \"" + counter + "\",\n" + data + "\n     }}\n  ]\n}\n";
        Files.write(out.resolve("configmaps.json"), cm.getBytes());
    }
}
