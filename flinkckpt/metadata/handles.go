package metadata

import "fmt"

// HandleType is the type byte Flink's MetadataV2V3SerializerBase writes
// before every state handle. One byte space is shared by stream, keyed and
// operator handles.
type HandleType byte

// Handle types.
const (
	TypeNull                HandleType = 0  // no handle
	TypeByteStream          HandleType = 1  // inline bytes; not a file
	TypeFile                HandleType = 2  // absolute file (FileStateHandle)
	TypeKeyGroups           HandleType = 3  // key groups (stream or keyed position), no handle id
	TypeOperatorStream      HandleType = 4  // partitionable operator state
	TypeIncremental         HandleType = 5  // incremental RocksDB, no checkpointed size, no handle id
	TypeRelativeFile        HandleType = 6  // file relative to the _metadata directory
	TypeSavepointKeyGroups  HandleType = 7  // canonical savepoint key groups
	TypeChangelog           HandleType = 8  // changelog backend, no checkpoint id
	TypeChangelogBytes      HandleType = 9  // in-memory changelog increment
	TypeChangelogFile       HandleType = 10 // changelog file increment, no storage id
	TypeIncrementalV2       HandleType = 11 // incremental RocksDB with checkpointed size and handle id
	TypeKeyGroupsV2         HandleType = 12 // key groups with handle id
	TypeChangelogFileV2     HandleType = 13 // changelog file increment with storage id
	TypeChangelogV2         HandleType = 14 // changelog backend with checkpoint id
	TypeSegment             HandleType = 15 // byte range of a merged file (file merging, 1.20)
	TypeEmptySegment        HandleType = 16 // empty segment
	TypeFileMergingOperator HandleType = 17 // operator state in merged files
)

var handleTypeNames = [...]string{
	TypeNull:                "null",
	TypeByteStream:          "byte-stream",
	TypeFile:                "file",
	TypeKeyGroups:           "key-groups",
	TypeOperatorStream:      "operator-stream",
	TypeIncremental:         "incremental",
	TypeRelativeFile:        "relative-file",
	TypeSavepointKeyGroups:  "savepoint-key-groups",
	TypeChangelog:           "changelog",
	TypeChangelogBytes:      "changelog-bytes",
	TypeChangelogFile:       "changelog-file",
	TypeIncrementalV2:       "incremental-v2",
	TypeKeyGroupsV2:         "key-groups-v2",
	TypeChangelogFileV2:     "changelog-file-v2",
	TypeChangelogV2:         "changelog-v2",
	TypeSegment:             "segment",
	TypeEmptySegment:        "empty-segment",
	TypeFileMergingOperator: "file-merging-operator",
}

// String names the type, e.g. "incremental-v2", or HandleType(n) for an
// unknown byte.
func (t HandleType) String() string {
	if int(t) < len(handleTypeNames) {
		return handleTypeNames[t]
	}
	return fmt.Sprintf("HandleType(%d)", byte(t))
}

// Changelog reports whether t belongs to the changelog state backend
// (types 8, 9, 10, 13 and 14).
func (t HandleType) Changelog() bool {
	switch t {
	case TypeChangelog, TypeChangelogBytes, TypeChangelogFile, TypeChangelogFileV2, TypeChangelogV2:
		return true
	}
	return false
}

const (
	maxHandleDepth          = 32 // nesting limit: Flink nests at most a few levels
	masterStateMagic uint32 = 0xC96B1696
	metadataMagic    uint32 = 0x4960672D
)

// ChannelType is the type byte of a channel state handle (version 6 on).
type ChannelType byte

// Channel handle types of the version 6 channel state serializer. Before
// version 6 the type is 0 and the list a handle is in tells input from output.
const (
	ChannelInput        ChannelType = 1 // input channel
	ChannelOutput       ChannelType = 2 // result subpartition
	ChannelMergedInput  ChannelType = 3 // merged input channels
	ChannelMergedOutput ChannelType = 4 // merged result subpartitions
)

// String names the channel type.
func (t ChannelType) String() string {
	switch t {
	case 0:
		return "unversioned"
	case ChannelInput:
		return "input"
	case ChannelOutput:
		return "output"
	case ChannelMergedInput:
		return "merged-input"
	case ChannelMergedOutput:
		return "merged-output"
	}
	return fmt.Sprintf("ChannelType(%d)", byte(t))
}

// StateMode is how a named operator state is redistributed on restore.
type StateMode byte

// Operator state distribution modes (OperatorStateHandle.Mode).
const (
	ModeSplit     StateMode = 0 // SPLIT_DISTRIBUTE: list state
	ModeUnion     StateMode = 1 // UNION: union list state, every subtask gets all
	ModeBroadcast StateMode = 2 // BROADCAST: broadcast state
)

// String names the mode as Flink does.
func (m StateMode) String() string {
	switch m {
	case ModeSplit:
		return "SPLIT_DISTRIBUTE"
	case ModeUnion:
		return "UNION"
	case ModeBroadcast:
		return "BROADCAST"
	}
	return fmt.Sprintf("StateMode(%d)", byte(m))
}

// StreamHandle is a stream state handle: a file, a relative file, inline
// bytes, a byte range of a merged file, or key-group offsets into another
// stream handle. A nil *StreamHandle is the null handle. Which fields are
// used depends on Type.
type StreamHandle struct {
	Type HandleType
	// Name of an inline byte stream (1), or the logical id of a segment (15).
	Name string
	// Data of an inline byte stream (1).
	Data []byte
	// Path: absolute (2, 15) or relative (6).
	Path string
	// Size of the state in bytes (2, 6, 15).
	Size int64
	// Start of a segment in its file (15).
	Start int64
	// Scope of a segment: 0 exclusive, 1 shared (15).
	Scope int32
	// KeyGroupStart and Offsets describe key groups (3).
	KeyGroupStart int32
	Offsets       []int64
	// Nested is the delegate of key groups (3).
	Nested *StreamHandle
}

// NamedHandle is one entry of an incremental handle's shared or private
// list: a local (RocksDB) file name and the handle that stores it.
type NamedHandle struct {
	LocalPath string
	Handle    *StreamHandle
}

// OffsetHandle is one stream of a changelog file increment and the offset
// into it.
type OffsetHandle struct {
	Offset int64
	Handle *StreamHandle
}

// StateChange is one change of an in-memory changelog increment.
type StateChange struct {
	KeyGroup int32
	Data     []byte
}

// KeyedHandle is a keyed state handle. A nil *KeyedHandle is the null
// handle. Which fields are used depends on Type:
//   - 3, 7, 12 (key groups): KeyGroupStart, KeyGroupCount, Offsets, Stream, HandleID (12);
//   - 5, 11 (incremental): CheckpointID, BackendID, KeyGroupStart, KeyGroupCount,
//     CheckpointedSize (11), Stream (meta data), Shared, Private, HandleID (11);
//   - 8, 14 (changelog): KeyGroupStart, KeyGroupCount, CheckpointedSize, Materialized,
//     NonMaterialized, MaterializationID, CheckpointID (14), HandleID;
//   - 9 (in-memory changelog): KeyGroupStart, KeyGroupCount, From, To, Changes, HandleID;
//   - 10, 13 (changelog file): KeyGroupStart, KeyGroupCount, Increments, StateSize,
//     CheckpointedSize, HandleID, StorageID (13).
type KeyedHandle struct {
	Type              HandleType
	KeyGroupStart     int32
	KeyGroupCount     int32
	Offsets           []int64
	Stream            *StreamHandle
	HandleID          string
	CheckpointID      int64
	BackendID         string
	CheckpointedSize  int64
	Shared, Private   []NamedHandle
	Materialized      []*KeyedHandle
	NonMaterialized   []*KeyedHandle
	MaterializationID int64
	From, To          int64
	Changes           []StateChange
	Increments        []OffsetHandle
	StateSize         int64
	StorageID         string
}

// OperatorStateInfo is one named operator state inside an operator handle.
type OperatorStateInfo struct {
	Name    string
	Mode    StateMode
	Offsets []int64
}

// OperatorHandle is an operator state handle (4, or 17 for file merging). A
// nil *OperatorHandle is the null handle.
type OperatorHandle struct {
	Type   HandleType
	States []OperatorStateInfo
	// TaskOwnedDir, SharedDir and Empty are set for type 17.
	TaskOwnedDir string
	SharedDir    string
	Empty        bool
	Stream       *StreamHandle
}

// ChannelHandle is the state of an input channel or result subpartition
// (unaligned checkpoints). Type is 0 before version 6, where the list it is
// in tells input from output; from version 6 it is one of ChannelInput,
// ChannelOutput, ChannelMergedInput, ChannelMergedOutput.
type ChannelHandle struct {
	Type    ChannelType
	Subtask int32
	// Info is gate and channel index (input) or partition and subpartition
	// index (output); unused for merged handles.
	Info    [2]int32
	Offsets []int64
	Size    int64
	Stream  *StreamHandle
	// Merged holds a merged handle's serialized channel offsets.
	Merged []byte
}

// SubtaskState is the state of one subtask of an operator.
type SubtaskState struct {
	Index int32
	// Finished is a subtask that finished before the checkpoint (v3+): it has
	// no state.
	Finished bool
	// Duration is the unused duration field of version 2.
	Duration            int64
	ManagedOperator     *OperatorHandle
	RawOperator         *OperatorHandle
	ManagedKeyed        *KeyedHandle
	RawKeyed            *KeyedHandle
	InputChannels       []ChannelHandle
	ResultSubpartitions []ChannelHandle
	// RefCheckpointID is version 7's per-subtask reference checkpoint id.
	RefCheckpointID *int64
}

// MasterState is a master hook's state.
type MasterState struct {
	Version int32
	Name    string
	Data    []byte
}
