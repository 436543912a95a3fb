package io.resumekit.conformance;

import org.apache.flink.api.connector.sink2.Sink;

/** A Sink V2 whose writer is made from a WriterInitContext only (the one createWriter Flink 2.x has). */
abstract class SinkBase<T> implements Sink<T> {
    private static final long serialVersionUID = 1L;
}
