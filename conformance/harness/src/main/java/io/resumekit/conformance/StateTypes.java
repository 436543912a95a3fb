package io.resumekit.conformance;

import org.apache.flink.api.common.typeutils.CompositeTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputViewStreamWrapper;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.state.IncrementalKeyedStateHandle;
import org.apache.flink.runtime.state.KeyGroupsStateHandle;
import org.apache.flink.runtime.state.KeyedBackendSerializationProxy;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.OperatorBackendSerializationProxy;
import org.apache.flink.runtime.state.OperatorStateHandle;
import org.apache.flink.runtime.state.StreamStateHandle;
import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshot;

import java.io.InputStream;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Flink's own reading of a snapshot's state meta info (KeyedBackendSerializationProxy and
 * OperatorBackendSerializationProxy, as a restore reads them, by the harness's Flink): per operator,
 * the keyed and operator states whose serializer snapshot is Kryo's or holds Kryo's (a tuple of a
 * generic type) — the truth resumekit's flink.kryo-state is judged against. Reads one subtask's
 * handle per operator and kind (every subtask of an operator registers the same states): the RocksDB
 * meta data file of an incremental or native snapshot, the head of the key-groups stream of a
 * canonical one or of the heap backend, the head of the operator state stream. An operator whose meta
 * info Flink cannot read (a class gone from its classpath) is named {@link #UNREADABLE}.
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
                    out.computeIfAbsent(id, x -> new TreeSet<>()).add(UNREADABLE + Flink.causes(e));
                }
                break; // one subtask per operator
            }
            for (OperatorSubtaskState st : op.getStates()) {
                OperatorStateHandle h = st.getManagedOperatorState().isEmpty() ? null : st.getManagedOperatorState().iterator().next();
                if (h == null) {
                    continue;
                }
                try (InputStream in = h.openInputStream()) {
                    OperatorBackendSerializationProxy p = new OperatorBackendSerializationProxy(StateTypes.class.getClassLoader());
                    p.read(new DataInputViewStreamWrapper(in));
                    for (StateMetaInfoSnapshot s : p.getOperatorStateMetaInfoSnapshots()) {
                        for (Map.Entry<String, TypeSerializerSnapshot<?>> e : s.getSerializerSnapshotsImmutable().entrySet()) {
                            if (isKryo(e.getValue())) {
                                out.computeIfAbsent(id, x -> new TreeSet<>()).add(s.getName() + " (" + e.getKey() + ")");
                            }
                        }
                    }
                } catch (Exception e) {
                    out.computeIfAbsent(id, x -> new TreeSet<>()).add(UNREADABLE + Flink.causes(e));
                }
                break;
            }
        }
        return out;
    }

    /** The prefix of an operator's entry when Flink's reader failed on its meta info (e.g. a class gone). */
    static final String UNREADABLE = "unreadable: ";

    /** Whether s is Kryo's snapshot, or a composite (tuple, list, map) with Kryo inside. */
    static boolean isKryo(TypeSerializerSnapshot<?> s) {
        if (s == null) {
            return false;
        }
        if (s.getClass().getName().toLowerCase().contains("kryo")) {
            return true;
        }
        if (s instanceof CompositeTypeSerializerSnapshot) {
            for (TypeSerializerSnapshot<?> n : ((CompositeTypeSerializerSnapshot<?, ?>) s).getNestedSerializerSnapshots()) {
                if (isKryo(n)) {
                    return true;
                }
            }
        }
        return false;
    }
}
