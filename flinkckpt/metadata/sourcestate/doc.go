// Package sourcestate reads where each source of a Flink job was, out of
// the source state in a checkpoint or savepoint: the FLIP-27 reader state
// (the "SourceReaderState" operator list state of every subtask) and the
// split enumerator's checkpoint (the operator coordinator state). It
// recognises and decodes
//
//   - KafkaSource (flink-connector-kafka): splits (serializer version 0:
//     topic, partition, next offset to read or the earliest -2, latest -1
//     and committed -3 markers, stopping offset) and enumerator states of
//     versions 0 to 3; and the legacy FlinkKafkaConsumer's union list state
//     "topic-partition-offset-states" (Kryo-serialized KafkaTopicPartition
//     and the last offset read, as KafkaSource splits starting at the next
//     one: how a 1.x job's offsets reach a Flink 2.x KafkaSource);
//   - Paimon's ContinuousFileStoreSource (next snapshot to plan and the
//     unfinished splits, DataSplit v1–v9, IncrementalSplit, ChainSplit),
//     MonitorSource and the legacy MonitorFunction;
//   - Flink CDC's MySQL source: the binlog split's position (file, pos,
//     GTID set, events and rows to skip, ts_sec) of split serializer
//     versions 1 to 4, and the enumerator state of versions 1 to 6 (its
//     phase and, in the snapshot and hybrid phases, the snapshot split
//     assigner's tables and splits) — a source still in the snapshot phase
//     has no binlog position, and [MySQLState.Position] says so
//     ([ErrSnapshotPhase]).
//
// Anything else is reported as [KindUnknown] with its operator id and
// split serializer version and a note saying why: nothing is guessed.
//
// It is pure, like package metadata beside it: bytes in, model out. The
// _metadata model comes from [metadata.Parse]; reader state held in files
// (large states, savepoints' relative files, file-merged segments) is read
// by the caller and handed over through [Options.ReadStream] (package
// flinkckpt does that from a bucket). The operator state stream itself —
// its header, the list elements at their offsets, the Snappy framing of
// compressed state (execution.checkpointing.snapshot-compression) — is
// read by package opstate, shared with sinkstate.
//
//	cp, _ := metadata.Parse(data, nil)
//	st, err := sourcestate.Decode(cp, &sourcestate.Options{ReadStream: read})
//	for _, src := range st.Sources {
//		switch src.Kind {
//		case sourcestate.KindKafka:
//			positions, notes := src.Kafka.Positions() // topic, partition, next offset
//		case sourcestate.KindPaimon:
//			pos, ok, why := src.Paimon.Position() // next snapshot to read
//		case sourcestate.KindMySQLCDC:
//			pos, notes, err := src.MySQL.Position() // binlog file, pos, GTIDs
//		}
//	}
//
// The layouts are those of Flink's SourceOperator, SourceCoordinator and
// OperatorBackendSerializationProxy and of the connectors' serializers;
// SOURCE-STATE.md in the project's shared notes documents them.
//
// # Bounds
//
// Every count and length is checked against the bytes left before
// anything of that size is allocated; a stream read through ReadStream and
// one decoded element are limited to [Options.MaxStreamSize] (default
// [DefaultMaxStreamSize]); list-state offsets must be strictly increasing;
// a compressed stream is decoded once, its chunks checked against their
// CRC-32C (never misread), and the bytes decoded out of a snapshot's
// compressed streams are limited to [Options.MaxDecodedSize]. Java-serialized Paimon splits are walked by the one shape Paimon
// writes (a class descriptor and block data), nothing is deserialized.
// Every decoder is fuzzed (FuzzReadSplits, FuzzCoordinator, FuzzKafka,
// FuzzPaimon, FuzzMySQL, FuzzDecode) with a seed corpus in testdata/fuzz.
//
// # Errors
//
// Errors about content wrap [ErrMalformed] and are a [*FormatError]
// naming the structure, the byte offset and the problem; sizes over the
// limit wrap [ErrTooLarge]; state in a file that was not read wraps
// [ErrNotRead]. Check them with errors.Is. [Decode] returns every source it
// found, each with its own Err, and joins those errors (errors.Join) in its
// own.
package sourcestate
