package io.resumekit.conformance;

import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;

/**
 * A Sink V2 whose writer is made from a WriterInitContext only. Flink 1.20's Sink still declares the
 * deprecated createWriter(InitContext) (removed in 2.0): it is never called when
 * createWriter(WriterInitContext) is overridden.
 */
abstract class SinkBase<T> implements Sink<T> {
    private static final long serialVersionUID = 1L;

    @Override
    @Deprecated
    public SinkWriter<T> createWriter(InitContext context) {
        throw new UnsupportedOperationException("createWriter(WriterInitContext) is used");
    }
}
