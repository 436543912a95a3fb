package io.resumekit.conformance;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.checkpoint.Checkpoints;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.KeyGroupsStateHandle;
import org.apache.flink.runtime.state.OperatorStreamStateHandle;
import org.apache.flink.runtime.state.StateObject;
import org.apache.flink.runtime.state.StreamStateHandle;
import org.apache.flink.runtime.state.changelog.ChangelogStateBackendHandle;
import org.apache.flink.runtime.state.changelog.ChangelogStateHandleStreamImpl;
import org.apache.flink.runtime.state.AbstractChannelStateHandle;
import org.apache.flink.runtime.state.filesystem.FileStateHandle;
import org.apache.flink.runtime.state.memory.ByteStreamStateHandle;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.TreeSet;

/**
 * An independent reader of what a {@code _metadata} references, through Flink's own
 * {@link Checkpoints#loadCheckpointMetadata}: every file path (exclusive, shared, DSTL, channel
 * state), the operators with their ids, max parallelism and whether they hold subtask or
 * coordinator state. The harness uses it to pick files to damage and to export Flink's facts.
 */
public final class References {
    private References() {}

    public static CheckpointMetadata load(Path dir) throws IOException {
        try (InputStream in = Files.newInputStream(dir.resolve("_metadata"))) {
            return Checkpoints.loadCheckpointMetadata(new DataInputStream(in), References.class.getClassLoader(),
                    Scenarios.flinkUri(dir));
        }
    }

    /** All file paths the snapshot in dir references, as Flink resolved them. */
    public static TreeSet<String> files(CheckpointMetadata md) {
        TreeSet<String> out = new TreeSet<>();
        for (OperatorState op : md.getOperatorStates()) {
            collect(op.getCoordinatorState(), out);
            for (OperatorSubtaskState st : op.getSubtaskStates().values()) {
                st.getManagedKeyedState().forEach(h -> collect(h, out));
                st.getRawKeyedState().forEach(h -> collect(h, out));
                st.getManagedOperatorState().forEach(h -> collect(h, out));
                st.getRawOperatorState().forEach(h -> collect(h, out));
                st.getInputChannelState().forEach(h -> collect(h, out));
                st.getResultSubpartitionState().forEach(h -> collect(h, out));
            }
        }
        return out;
    }

    /** One segment of a merged file (file merging): the file's URI, where it starts, how long it is. */
    public static final class Segment {
        public final String file;
        public final long start;
        public final long size;

        Segment(String file, long start, long size) {
            this.file = file;
            this.start = start;
            this.size = size;
        }
    }

    /** The segments of merged files the snapshot references (empty without file merging). */
    public static java.util.List<Segment> segments(CheckpointMetadata md) {
        java.util.List<Segment> segs = new java.util.ArrayList<>();
        TreeSet<String> ignored = new TreeSet<>();
        for (OperatorState op : md.getOperatorStates()) {
            collect(op.getCoordinatorState(), ignored, segs);
            for (OperatorSubtaskState st : op.getSubtaskStates().values()) {
                st.getManagedKeyedState().forEach(h -> collect(h, ignored, segs));
                st.getRawKeyedState().forEach(h -> collect(h, ignored, segs));
                st.getManagedOperatorState().forEach(h -> collect(h, ignored, segs));
                st.getRawOperatorState().forEach(h -> collect(h, ignored, segs));
                st.getInputChannelState().forEach(h -> collect(h, ignored, segs));
                st.getResultSubpartitionState().forEach(h -> collect(h, ignored, segs));
            }
        }
        return segs;
    }

    static void collect(StateObject h, TreeSet<String> out) {
        collect(h, out, null);
    }

    static void collect(StateObject h, TreeSet<String> out, java.util.List<Segment> segs) {
        if (h == null || h instanceof ByteStreamStateHandle) {
            return;
        }
        if (h instanceof FileStateHandle) {
            out.add(((FileStateHandle) h).getFilePath().toUri().toString());
        } else if (h instanceof KeyGroupsStateHandle) {
            collect(((KeyGroupsStateHandle) h).getDelegateStateHandle(), out, segs);
        } else if (h instanceof OperatorStreamStateHandle) {
            collect(((OperatorStreamStateHandle) h).getDelegateStateHandle(), out, segs);
        } else if (h instanceof IncrementalRemoteKeyedStateHandle) {
            IncrementalRemoteKeyedStateHandle i = (IncrementalRemoteKeyedStateHandle) h;
            collect(i.getMetaDataStateHandle(), out, segs);
            i.getSharedState().forEach(x -> collect(x.getHandle(), out, segs));
            i.getPrivateState().forEach(x -> collect(x.getHandle(), out, segs));
        } else if (h instanceof ChangelogStateBackendHandle) {
            ChangelogStateBackendHandle c = (ChangelogStateBackendHandle) h;
            c.getMaterializedStateHandles().forEach(x -> collect(x, out, segs));
            c.getNonMaterializedStateHandles().forEach(x -> collect(x, out, segs));
        } else if (h instanceof ChangelogStateHandleStreamImpl) {
            for (Tuple2<StreamStateHandle, Long> t : ((ChangelogStateHandleStreamImpl) h).getHandlesAndOffsets()) {
                collect(t.f0, out, segs);
            }
        } else if (FlinkLine.mergedChannelDelegate(h) != null) {
            // Flink 2.x: one subtask's channel states merged into one handle (_metadata v6 types 3, 4)
            collect(FlinkLine.mergedChannelDelegate(h), out, segs);
        } else if (h instanceof AbstractChannelStateHandle) {
            collect(((AbstractChannelStateHandle<?>) h).getDelegate(), out, segs);
        } else if (h.getClass().getSimpleName().equals("EmptySegmentFileStateHandle")) {
            return; // file merging's empty segment (handle type 16): no file
        } else if (h.getClass().getSimpleName().equals("SegmentFileStateHandle")) {
            try {
                Object p = h.getClass().getMethod("getFilePath").invoke(h);
                out.add(((org.apache.flink.core.fs.Path) p).toUri().toString());
                if (segs != null) {
                    segs.add(new Segment(((org.apache.flink.core.fs.Path) p).toUri().toString(),
                            (Long) h.getClass().getMethod("getStartPos").invoke(h), h.getStateSize()));
                }
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        } else {
            out.add("unknown-handle:" + h.getClass().getName());
        }
    }

    /** The operators: id, max parallelism, parallelism, subtask state and coordinator state. */
    public static ArrayNode operators(CheckpointMetadata md) {
        ArrayNode a = Flink.JSON.createArrayNode();
        for (OperatorState op : md.getOperatorStates()) {
            ObjectNode o = a.addObject();
            o.put("id", op.getOperatorID().toHexString());
            o.put("maxParallelism", op.getMaxParallelism());
            o.put("parallelism", op.getParallelism());
            boolean sub = op.getSubtaskStates().values().stream().anyMatch(OperatorSubtaskState::hasState);
            o.put("subtaskState", sub);
            o.put("coordinatorState", op.getCoordinatorState() != null);
            FlinkLine.nameAndUid(op, o);
        }
        return a;
    }
}
