package io.resumekit.conformance;

import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputViewStreamWrapper;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.state.IncrementalKeyedStateHandle;
import org.apache.flink.runtime.state.KeyGroupsStateHandle;
import org.apache.flink.runtime.state.KeyedBackendSerializationProxy;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.StreamStateHandle;
import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshot;

import java.io.InputStream;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Flink's own reading of a snapshot's keyed state meta info (KeyedBackendSerializationProxy, as a
 * restore reads it, by the harness's Flink): per operator, the keyed states whose serializer
 * snapshot is Kryo's — the truth resumekit's flink.kryo-state is judged against. Reads one subtask's
 * handle per operator (every subtask of an operator registers the same states): the RocksDB meta
 * data file of an incremental or native snapshot, the head of the key-groups stream of a canonical
 * one or of the heap backend.
 */
final class StateTypes {
    private StateTypes() {}

    /** Operator id (hex) to "state (role)" of every Kryo-serialized keyed state; an unreadable one is named so. */
    static TreeMap<String, TreeSet<String>> kryoKeyed(Path dir) throws Exception {
        CheckpointMetadata md = References.load(dir);
        TreeMap<String, TreeSet<String>> out = new TreeMap<>();
        for (OperatorState op : md.getOperatorStates()) {
            String id = op.getOperatorID().toHexString();
            for (OperatorSubtaskState st : op.getStates()) {
                KeyedStateHandle h = st.getManagedKeyedState().isEmpty() ? null : st.getManagedKeyedState().iterator().next();
                StreamStateHandle meta = h instanceof IncrementalKeyedStateHandle ? ((IncrementalKeyedStateHandle) h).getMetaDataStateHandle()
                        : h instanceof KeyGroupsStateHandle ? ((KeyGroupsStateHandle) h).getDelegateStateHandle() : null;
                if (meta == null) {
                    continue;
                }
                try (InputStream in = meta.openInputStream()) {
                    KeyedBackendSerializationProxy<?> p = new KeyedBackendSerializationProxy<>(StateTypes.class.getClassLoader());
                    p.read(new DataInputViewStreamWrapper(in));
                    if (isKryo(p.getKeySerializerSnapshot())) {
                        out.computeIfAbsent(id, x -> new TreeSet<>()).add("(key)");
                    }
                    for (StateMetaInfoSnapshot s : p.getStateMetaInfoSnapshots()) {
                        for (Map.Entry<String, TypeSerializerSnapshot<?>> e : s.getSerializerSnapshotsImmutable().entrySet()) {
                            if (isKryo(e.getValue())) {
                                out.computeIfAbsent(id, x -> new TreeSet<>()).add(s.getName() + " (" + e.getKey() + ")");
                            }
                        }
                    }
                } catch (Exception e) {
                    out.computeIfAbsent(id, x -> new TreeSet<>()).add("unreadable: " + Flink.causes(e));
                }
                break; // one subtask per operator
            }
        }
        return out;
    }

    static boolean isKryo(TypeSerializerSnapshot<?> s) {
        return s != null && s.getClass().getName().toLowerCase().contains("kryo");
    }
}
