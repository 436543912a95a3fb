package flinkckpttest

import (
	"github.com/resumekit/resumekit/flinkckpt"
)

// AllHandles returns a Metadata of the given version (2 to 7) that uses
// every stream, keyed and operator handle type, and from version 3 on
// finished operators and subtasks, coordinator state and channel state (v6:
// all four channel handle types), from version 5 operator names and uids,
// and in version 7 reference checkpoint ids. Absolute files are under root
// (a Flink URI ending in "/"); relative files are named rel-*. Tests use it
// to round-trip every handle type; it is not a state Flink would restore.
func AllHandles(version int, root string) *flinkckpt.Metadata {
	file := func(name string, size int64) *flinkckpt.StreamHandle {
		return &flinkckpt.StreamHandle{Type: flinkckpt.TypeFile, Path: root + name, Size: size}
	}
	rel := func(name string, size int64) *flinkckpt.StreamHandle {
		return &flinkckpt.StreamHandle{Type: flinkckpt.TypeRelativeFile, Path: name, Size: size}
	}
	inline := &flinkckpt.StreamHandle{Type: flinkckpt.TypeByteStream, Name: "inline-\u00e9\u0000\U0001F600", Data: []byte{1, 2, 3}}
	keyGroups := &flinkckpt.StreamHandle{Type: flinkckpt.TypeKeyGroups, KeyGroupStart: 4, Offsets: []int64{0, 10}, Nested: rel("rel-kg", 20)}
	segment := &flinkckpt.StreamHandle{Type: flinkckpt.TypeSegment, Start: 100, Size: 50, Scope: 1, Path: root + "shared/merged-1", Name: "logical-1"}
	empty := &flinkckpt.StreamHandle{Type: flinkckpt.TypeEmptySegment}

	keyed := []*flinkckpt.KeyedHandle{
		{Type: flinkckpt.TypeKeyGroups, KeyGroupStart: 0, KeyGroupCount: 2, Offsets: []int64{0, 8}, Stream: file("chk/kg-3", 16)},
		{Type: flinkckpt.TypeSavepointKeyGroups, KeyGroupStart: 2, KeyGroupCount: 1, Offsets: []int64{0}, Stream: rel("rel-sp", 8)},
		{Type: flinkckpt.TypeKeyGroupsV2, KeyGroupStart: 3, KeyGroupCount: 1, Offsets: []int64{5}, Stream: keyGroups, HandleID: "kg-v2"},
		{Type: flinkckpt.TypeIncremental, CheckpointID: 6, BackendID: "backend-a", KeyGroupStart: 0, KeyGroupCount: 128,
			Stream:  inline,
			Shared:  []flinkckpt.NamedHandle{{LocalPath: "000010.sst", Handle: file("shared/sst-10", 100)}},
			Private: []flinkckpt.NamedHandle{{LocalPath: "MANIFEST-000004", Handle: rel("rel-manifest", 30)}, {LocalPath: "CURRENT", Handle: inline}}},
		{Type: flinkckpt.TypeIncrementalV2, CheckpointID: 7, BackendID: "backend-b", KeyGroupStart: 0, KeyGroupCount: 64, CheckpointedSize: 130,
			Stream: rel("rel-meta", 12), Shared: []flinkckpt.NamedHandle{{LocalPath: "000011.sst", Handle: segment}}, HandleID: "inc-v2"},
		{Type: flinkckpt.TypeChangelog, KeyGroupStart: 0, KeyGroupCount: 8, CheckpointedSize: 9,
			Materialized: []*flinkckpt.KeyedHandle{{Type: flinkckpt.TypeKeyGroupsV2, KeyGroupStart: 0, KeyGroupCount: 1, Offsets: []int64{0}, Stream: empty, HandleID: "m"}},
			NonMaterialized: []*flinkckpt.KeyedHandle{{Type: flinkckpt.TypeChangelogBytes, KeyGroupStart: 0, KeyGroupCount: 8, From: 1, To: 5,
				Changes: []flinkckpt.StateChange{{KeyGroup: -1, Data: []byte("meta")}, {KeyGroup: 3, Data: []byte{9}}}, HandleID: "bytes"}},
			MaterializationID: 11, HandleID: "changelog"},
		{Type: flinkckpt.TypeChangelogV2, KeyGroupStart: 0, KeyGroupCount: 8, CheckpointedSize: 10,
			NonMaterialized: []*flinkckpt.KeyedHandle{
				{Type: flinkckpt.TypeChangelogFile, KeyGroupStart: 0, KeyGroupCount: 8,
					Increments: []flinkckpt.OffsetHandle{{Offset: 0, Handle: file("dstl/log-1", 40)}}, StateSize: 40, CheckpointedSize: 40, HandleID: "file-v1"},
				{Type: flinkckpt.TypeChangelogFileV2, KeyGroupStart: 0, KeyGroupCount: 8,
					Increments: []flinkckpt.OffsetHandle{{Offset: 4, Handle: file("dstl/log-2", 41)}, {Offset: 8, Handle: file("dstl/log-2", 41)}},
					StateSize:  41, CheckpointedSize: 20, HandleID: "file-v2", StorageID: "filesystem"}},
			MaterializationID: 12, CheckpointID: 13, HandleID: "changelog-v2"},
	}
	operatorHandles := []*flinkckpt.OperatorHandle{
		{Type: flinkckpt.TypeOperatorStream, States: []flinkckpt.OperatorStateInfo{
			{Name: "split", Mode: 0, Offsets: []int64{0, 4}}, {Name: "union", Mode: 1}, {Name: "broadcast", Mode: 2, Offsets: []int64{8}}},
			Stream: rel("rel-op", 12)},
		{Type: flinkckpt.TypeFileMergingOperator, States: []flinkckpt.OperatorStateInfo{{Name: "merged", Mode: 0, Offsets: []int64{0}}},
			TaskOwnedDir: root + "taskowned/", SharedDir: root + "shared/", Empty: false,
			Stream: &flinkckpt.StreamHandle{Type: flinkckpt.TypeSegment, Start: 0, Size: 10, Scope: 0, Path: root + "taskowned/merged-2", Name: "logical-2"}},
		{Type: flinkckpt.TypeFileMergingOperator, TaskOwnedDir: root + "taskowned/", SharedDir: root + "shared/", Empty: true, Stream: empty},
	}
	md := &flinkckpt.Metadata{Version: version, CheckpointID: 42,
		Masters: []flinkckpt.MasterState{{Version: 1, Name: "hook-a", Data: []byte("x")}, {Version: 2, Name: "hook-b", Data: []byte{}}}}
	var subtasks []flinkckpt.SubtaskState
	for i, k := range keyed {
		st := flinkckpt.SubtaskState{Index: int32(i), ManagedKeyed: k}
		if version == 2 {
			st.Duration = int64(100 + i)
		}
		if i < len(operatorHandles) {
			st.ManagedOperator = operatorHandles[i]
			st.RawOperator = operatorHandles[len(operatorHandles)-1-i]
		}
		if i == 0 {
			st.RawKeyed = &flinkckpt.KeyedHandle{Type: flinkckpt.TypeKeyGroups, KeyGroupStart: 0, KeyGroupCount: 0, Offsets: []int64{}, Stream: inline}
		}
		if version >= 3 && i == 1 {
			st.InputChannels = []flinkckpt.ChannelHandle{{Subtask: 1, Info: [2]int32{0, 3}, Offsets: []int64{0, 7}, Size: 14, Stream: rel("rel-in", 14)}}
			st.ResultSubpartitions = []flinkckpt.ChannelHandle{{Subtask: 1, Info: [2]int32{1, 2}, Offsets: []int64{0}, Size: 5, Stream: inline}}
			if version >= 6 {
				st.InputChannels[0].Type = flinkckpt.ChannelInput
				st.ResultSubpartitions[0].Type = flinkckpt.ChannelOutput
				st.InputChannels = append(st.InputChannels, flinkckpt.ChannelHandle{Type: flinkckpt.ChannelMergedInput, Subtask: 1, Size: 9, Stream: rel("rel-merged-in", 9), Merged: []byte{1, 2}})
				st.ResultSubpartitions = append(st.ResultSubpartitions, flinkckpt.ChannelHandle{Type: flinkckpt.ChannelMergedOutput, Subtask: 1, Size: 3, Stream: inline, Merged: []byte{}})
			}
		}
		if version >= 7 && i%2 == 0 {
			ref := int64(40 + i)
			st.RefCheckpointID = &ref
		}
		subtasks = append(subtasks, st)
	}
	op := flinkckpt.Operator{ID: OperatorID(0), Parallelism: len(subtasks), MaxParallelism: 128, SubtaskStates: subtasks, Subtasks: len(subtasks)}
	plain := flinkckpt.Operator{ID: OperatorID(1), Parallelism: 2, MaxParallelism: 256,
		SubtaskStates: []flinkckpt.SubtaskState{{Index: 0, ManagedOperator: operatorHandles[0]}}, Subtasks: 1}
	if version >= 3 {
		op.Coordinator = inline
		plain.SubtaskStates = append(plain.SubtaskStates, flinkckpt.SubtaskState{Index: 1, Finished: true})
		plain.Subtasks = 2
		if version >= 7 {
			plain.SubtaskStates[0].RefCheckpointID = new(int64)
		}
	}
	if version >= 5 {
		op.Name, op.UID = "Keyed Aggregation", "agg-uid"
		plain.Name = "Source: numbers"
	}
	md.Operators = []flinkckpt.Operator{op, plain}
	if version >= 3 {
		md.Operators = append(md.Operators, flinkckpt.Operator{ID: OperatorID(2), Parallelism: 1, MaxParallelism: 128, Finished: true})
	}
	if version >= 4 {
		md.Savepoint, md.Format = true, "NATIVE"
	}
	return md
}
