package metadata

// Format is a savepoint format, as the savepoint's properties record it.
type Format string

// Savepoint formats (SavepointFormatType).
const (
	// FormatCanonical is the state-backend-independent format.
	FormatCanonical Format = "CANONICAL"
	// FormatNative is the state backend's own format (RocksDB files).
	FormatNative Format = "NATIVE"
)

// PostCheckpointAction is what the job did after a savepoint, as its
// properties record it (SavepointType.PostCheckpointAction, Flink 1.15 on).
type PostCheckpointAction string

// Post-checkpoint actions.
const (
	// ActionNone: the job kept running ("flink savepoint"): it went on
	// checkpointing and committing after the savepoint.
	ActionNone PostCheckpointAction = "NONE"
	// ActionSuspend: the job stopped ("flink stop").
	ActionSuspend PostCheckpointAction = "SUSPEND"
	// ActionTerminate: the job stopped after draining ("flink stop
	// --drain").
	ActionTerminate PostCheckpointAction = "TERMINATE"
)

// MaxCheckpointID is the largest checkpoint id a _metadata may hold: 2^62.
// A larger one is malformed (Flink's counter would need ~146 years at one
// checkpoint per nanosecond to reach it), so that no id arithmetic of a
// caller comes near int64 overflow.
const MaxCheckpointID = 1 << 62

// Checkpoint is a parsed _metadata file: a checkpoint or a savepoint.
type Checkpoint struct {
	// Version of the format, 2 to 7.
	Version int
	// CheckpointID, 0 to MaxCheckpointID; savepoints share the counter
	// with checkpoints.
	CheckpointID int64
	// Savepoint is true when the properties (v4+) name a savepoint type.
	// Versions 2 and 3 record no properties: it is false there, and whether
	// the file is a savepoint is for the caller to tell (flinkckpt goes by
	// the savepoint-… directory name).
	Savepoint bool
	// Format is the savepoint format the properties name, "" otherwise.
	Format Format
	// Drained is true for a savepoint taken by "stop --drain" (the
	// properties' post-checkpoint action is TERMINATE): the old job emitted
	// its final watermark and flushed its windows.
	Drained bool
	// Action is the savepoint's post-checkpoint action when the properties
	// name one (v4+ savepoints), "" otherwise.
	Action PostCheckpointAction
	// MasterStates lists the master hooks' state names.
	MasterStates []string
	// Masters holds the master states in full.
	Masters []MasterState
	// Operators holds every operator's state, in file order.
	Operators []Operator
	// Files lists every file the state references, in the order met;
	// inline byte streams are not files.
	Files []FileRef
	// Properties holds the v4+ trailing Java-serialized CheckpointProperties.
	Properties []byte
	// Size is the number of bytes parsed (all of the file).
	Size int64
}

// Operator is one operator's state.
type Operator struct {
	// ID is the operator id as Flink prints it: 32 hex characters.
	ID string
	// Name and UID are recorded from version 5 on ("" when unknown).
	Name, UID string
	// Parallelism and MaxParallelism as recorded; the max parallelism is
	// the number of key groups of keyed state.
	Parallelism    int
	MaxParallelism int
	// Subtasks is the number of subtask states recorded.
	Subtasks int
	// Finished is an operator that had fully finished (v3+, count -1).
	Finished bool
	// Coordinator is the operator coordinator's state (v3+).
	Coordinator *StreamHandle
	// SubtaskStates holds one entry per subtask with state.
	SubtaskStates []SubtaskState
}

// FileRef is one file referenced by the state.
type FileRef struct {
	// Path is the Flink file system URI of an absolute reference, or the
	// path relative to the _metadata directory.
	Path string
	// Relative is true for a reference relative to the _metadata directory
	// (handle type 6, and the files of canonical savepoints).
	Relative bool
	// Size is the state size recorded for the file. For a segment of a
	// merged file (Segment), the file must hold at least Offset+Size bytes.
	Size int64
	// Offset is where a segment starts in its merged file.
	Offset int64
	// Segment is true for a byte range of a merged file (type 15).
	Segment bool
	// Operator is the id of the operator whose state references the file.
	Operator string
	// Changelog is true for a state changelog (DSTL) file referenced from
	// a changelog file handle (types 10, 13). Flink records its size
	// without the one byte StateChangeFsUploader writes before the
	// changes (the compression flag), so the file on storage is Size or
	// Size+1 bytes (seen on every DSTL file Flink 1.20.3 wrote in the
	// conformance scenario F3).
	Changelog bool
}
