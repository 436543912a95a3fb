package org.apache.flink.kubernetes.highavailability;

import org.apache.flink.runtime.state.RetrievableStateHandle;
import org.apache.flink.runtime.state.StateObject;

/** Stand-in with upstream's nested class name and fields (flink-kubernetes is not on Maven Central's mirror here). */
public class KubernetesStateHandleStore {
    public static class StateHandleWithDeleteMarker<T extends java.io.Serializable> implements StateObject {
        private static final long serialVersionUID = 1L;
        private final RetrievableStateHandle<T> inner;
        private final boolean markedForDeletion;
        public StateHandleWithDeleteMarker(RetrievableStateHandle<T> inner, boolean marked) { this.inner = inner; this.markedForDeletion = marked; }
        public void discardState() {}
        public long getStateSize() { return 0; }
    }
}
