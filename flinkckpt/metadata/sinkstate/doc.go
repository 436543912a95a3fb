// Package sinkstate reads what a Flink Sink V2 committer still has to
// commit, out of its operator state in a checkpoint or savepoint: the
// transactions (committables) a two-phase sink prepared for a checkpoint
// and had not committed yet when the snapshot was taken.
//
// A two-phase Sink V2 sink (SupportsCommitter; Kafka's exactly-once sink,
// the FileSink, a JDBC XA sink) prepares its transactions at every
// checkpoint, hands them to its committer operator (uid
// "Sink Committer: <sink uid>"), and commits them only when the
// checkpoint completes (notifyCheckpointComplete). The committer keeps
// those not committed yet in the operator list state
// "streaming_committer_raw_states" ([CommitterStateName]): one element per
// subtask, CommittableCollectorSerializer's bytes in
// SimpleVersionedSerialization framing. A job restored from the snapshot
// commits them again (Flink re-commits restored committables); a
// stateless start never sees them, so their output is lost unless the old
// job committed them before it stopped. Package salvage grades that.
//
// [Decode] finds every operator that holds committer state and reads, per
// subtask, the checkpoint ids that still have committables and how many
// of them are pending (received or to be retried), committed or failed.
// The committables themselves are sink-specific and are not decoded. It
// reads the collector serializer's versions 1 (Flink 1.13–1.14's
// StreamingCommitterState, committables without a checkpoint id:
// [Checkpoint.Legacy]) and 2 (Flink 1.15 on), with checkpoint serializer
// versions 0 and 1 (1 records the number of writer subtasks) and subtask
// serializer versions 0 to 2 (1 records the subtask id, 2 drops the
// drained count); Flink 1.20.3 writes 2, 1 and 1.
//
// Paimon's sink has its own committer operator: beside
// "streaming_committer_raw_states" it keeps the job's commit user in the
// union list state "commit_user_state" ([CommitUserStateName]), and that
// pair marks it ([FormatPaimon]). Its elements are ManifestCommittables
// (ManifestCommittableSerializer versions 2 to 4; a multi-table CDC sink's
// WrappedManifestCommittable, version 1): [Committer.Paimon] holds the commit
// user and each committable's identifier — the checkpoint it was prepared
// at, which the table's snapshots record as "commitIdentifier" once
// committed (package paimon asks the table: Table.LatestCommitOf). The
// commit messages (data files) are counted, not decoded. Any other
// connector's committer under the same state name is reported as
// [FormatUnknown] with a note and its element count: nothing is guessed.
//
// It is pure, like packages metadata and sourcestate beside it: bytes in,
// model out. State held in files is read through [Options.ReadStream], as
// in sourcestate (package flinkckpt does that from a bucket), and the list
// elements are located with package opstate (the operator state stream,
// shared with sourcestate; sinkstate does not import sourcestate), so inline and
// file state, file-merged segments and Snappy-compressed streams are read
// alike.
//
//	cp, _ := metadata.Parse(data, nil)
//	st, err := sinkstate.Decode(cp, &sinkstate.Options{ReadStream: read})
//	for _, c := range st.Committers {
//		for _, p := range c.Pending() {
//			fmt.Println(c.OperatorID, p.CheckpointID, p.Committables)
//		}
//	}
//
// # Bounds and errors
//
// Every count and length is checked against the bytes left before anything
// of that size is allocated; an element is limited to
// [Options.MaxStreamSize]. Errors about content wrap [ErrMalformed] and
// are a [*FormatError] naming the structure, the byte offset and the
// problem (errors of the state stream's framing come from opstate and
// wrap opstate.ErrMalformed as well); state in a file that was not
// read wraps opstate.ErrNotRead; more than the limits, opstate.ErrTooLarge
// (offsets not strictly increasing are refused, and a compressed stream is
// decoded once, within [Options.MaxStreamSize] and the snapshot's
// [Options.MaxDecodedSize]). [Decode] returns every committer it
// found, each with its own Err, and joins those errors in its own. The
// decoder is fuzzed (FuzzCollector) with a seed corpus in testdata/fuzz.
package sinkstate
