package flinkckpttest

import "github.com/resumekit/resumekit/flinkckpt/metadata"

// AllHandles returns a Metadata of the given version (2 to 7) that uses
// every stream, keyed and operator handle type, and from version 3 on
// finished operators and subtasks, coordinator state and channel state (v6:
// all four channel handle types), from version 5 operator names and uids,
// and in version 7 reference checkpoint ids. Absolute files are under root
// (a Flink URI ending in "/"); relative files are named rel-*. Tests use it
// to round-trip every handle type; it is not a state Flink would restore.
func AllHandles(version int, root string) *metadata.Checkpoint {
	file := func(name string, size int64) *metadata.StreamHandle {
		return &metadata.StreamHandle{Type: metadata.TypeFile, Path: root + name, Size: size}
	}
	rel := func(name string, size int64) *metadata.StreamHandle {
		return &metadata.StreamHandle{Type: metadata.TypeRelativeFile, Path: name, Size: size}
	}
	inline := &metadata.StreamHandle{Type: metadata.TypeByteStream, Name: "inline-\u00e9\u0000\U0001F600", Data: []byte{1, 2, 3}}
	keyGroups := &metadata.StreamHandle{Type: metadata.TypeKeyGroups, KeyGroupStart: 4, Offsets: []int64{0, 10}, Nested: rel("rel-kg", 20)}
	segment := &metadata.StreamHandle{Type: metadata.TypeSegment, Start: 100, Size: 50, Scope: 1, Path: root + "shared/merged-1", Name: "logical-1"}
	empty := &metadata.StreamHandle{Type: metadata.TypeEmptySegment}

	keyed := []*metadata.KeyedHandle{
		{Type: metadata.TypeKeyGroups, KeyGroupStart: 0, KeyGroupCount: 2, Offsets: []int64{0, 8}, Stream: file("chk/kg-3", 16)},
		{Type: metadata.TypeSavepointKeyGroups, KeyGroupStart: 2, KeyGroupCount: 1, Offsets: []int64{0}, Stream: rel("rel-sp", 8)},
		{Type: metadata.TypeKeyGroupsV2, KeyGroupStart: 3, KeyGroupCount: 1, Offsets: []int64{5}, Stream: keyGroups, HandleID: "kg-v2"},
		{Type: metadata.TypeIncremental, CheckpointID: 6, BackendID: "backend-a", KeyGroupStart: 0, KeyGroupCount: 128,
			Stream:  inline,
			Shared:  []metadata.NamedHandle{{LocalPath: "000010.sst", Handle: file("shared/sst-10", 100)}},
			Private: []metadata.NamedHandle{{LocalPath: "MANIFEST-000004", Handle: rel("rel-manifest", 30)}, {LocalPath: "CURRENT", Handle: inline}}},
		{Type: metadata.TypeIncrementalV2, CheckpointID: 7, BackendID: "backend-b", KeyGroupStart: 0, KeyGroupCount: 64, CheckpointedSize: 130,
			Stream: rel("rel-meta", 12), Shared: []metadata.NamedHandle{{LocalPath: "000011.sst", Handle: segment}}, HandleID: "inc-v2"},
		{Type: metadata.TypeChangelog, KeyGroupStart: 0, KeyGroupCount: 8, CheckpointedSize: 9,
			Materialized: []*metadata.KeyedHandle{{Type: metadata.TypeKeyGroupsV2, KeyGroupStart: 0, KeyGroupCount: 1, Offsets: []int64{0}, Stream: empty, HandleID: "m"}},
			NonMaterialized: []*metadata.KeyedHandle{{Type: metadata.TypeChangelogBytes, KeyGroupStart: 0, KeyGroupCount: 8, From: 1, To: 5,
				Changes: []metadata.StateChange{{KeyGroup: -1, Data: []byte("meta")}, {KeyGroup: 3, Data: []byte{9}}}, HandleID: "bytes"}},
			MaterializationID: 11, HandleID: "changelog"},
		{Type: metadata.TypeChangelogV2, KeyGroupStart: 0, KeyGroupCount: 8, CheckpointedSize: 10,
			NonMaterialized: []*metadata.KeyedHandle{
				{Type: metadata.TypeChangelogFile, KeyGroupStart: 0, KeyGroupCount: 8,
					Increments: []metadata.OffsetHandle{{Offset: 0, Handle: file("dstl/log-1", 40)}}, StateSize: 40, CheckpointedSize: 40, HandleID: "file-v1"},
				{Type: metadata.TypeChangelogFileV2, KeyGroupStart: 0, KeyGroupCount: 8,
					Increments: []metadata.OffsetHandle{{Offset: 4, Handle: file("dstl/log-2", 41)}, {Offset: 8, Handle: file("dstl/log-2", 41)}},
					StateSize:  41, CheckpointedSize: 20, HandleID: "file-v2", StorageID: "filesystem"}},
			MaterializationID: 12, CheckpointID: 13, HandleID: "changelog-v2"},
	}
	operatorHandles := []*metadata.OperatorHandle{
		{Type: metadata.TypeOperatorStream, States: []metadata.OperatorStateInfo{
			{Name: "split", Mode: 0, Offsets: []int64{0, 4}}, {Name: "union", Mode: 1}, {Name: "broadcast", Mode: 2, Offsets: []int64{8}}},
			Stream: rel("rel-op", 12)},
		{Type: metadata.TypeFileMergingOperator, States: []metadata.OperatorStateInfo{{Name: "merged", Mode: 0, Offsets: []int64{0}}},
			TaskOwnedDir: root + "taskowned/", SharedDir: root + "shared/", Empty: false,
			Stream: &metadata.StreamHandle{Type: metadata.TypeSegment, Start: 0, Size: 10, Scope: 0, Path: root + "taskowned/merged-2", Name: "logical-2"}},
		{Type: metadata.TypeFileMergingOperator, TaskOwnedDir: root + "taskowned/", SharedDir: root + "shared/", Empty: true, Stream: empty},
	}
	md := &metadata.Checkpoint{Version: version, CheckpointID: 42,
		Masters: []metadata.MasterState{{Version: 1, Name: "hook-a", Data: []byte("x")}, {Version: 2, Name: "hook-b", Data: []byte{}}}}
	var subtasks []metadata.SubtaskState
	for i, k := range keyed {
		st := metadata.SubtaskState{Index: int32(i), ManagedKeyed: k}
		if version == 2 {
			st.Duration = int64(100 + i)
		}
		if i < len(operatorHandles) {
			st.ManagedOperator = operatorHandles[i]
			st.RawOperator = operatorHandles[len(operatorHandles)-1-i]
		}
		if i == 0 {
			st.RawKeyed = &metadata.KeyedHandle{Type: metadata.TypeKeyGroups, KeyGroupStart: 0, KeyGroupCount: 0, Offsets: []int64{}, Stream: inline}
		}
		if version >= 3 && i == 1 {
			st.InputChannels = []metadata.ChannelHandle{{Subtask: 1, Info: [2]int32{0, 3}, Offsets: []int64{0, 7}, Size: 14, Stream: rel("rel-in", 14)}}
			st.ResultSubpartitions = []metadata.ChannelHandle{{Subtask: 1, Info: [2]int32{1, 2}, Offsets: []int64{0}, Size: 5, Stream: inline}}
			if version >= 6 {
				st.InputChannels[0].Type = metadata.ChannelInput
				st.ResultSubpartitions[0].Type = metadata.ChannelOutput
				st.InputChannels = append(st.InputChannels, metadata.ChannelHandle{Type: metadata.ChannelMergedInput, Subtask: 1, Size: 9, Stream: rel("rel-merged-in", 9), Merged: []byte{1, 2}})
				st.ResultSubpartitions = append(st.ResultSubpartitions, metadata.ChannelHandle{Type: metadata.ChannelMergedOutput, Subtask: 1, Size: 3, Stream: inline, Merged: []byte{}})
			}
		}
		if version >= 7 && i%2 == 0 {
			ref := int64(40 + i)
			st.RefCheckpointID = &ref
		}
		subtasks = append(subtasks, st)
	}
	op := metadata.Operator{ID: OperatorID(0), Parallelism: len(subtasks), MaxParallelism: 128, SubtaskStates: subtasks, Subtasks: len(subtasks)}
	plain := metadata.Operator{ID: OperatorID(1), Parallelism: 2, MaxParallelism: 256,
		SubtaskStates: []metadata.SubtaskState{{Index: 0, ManagedOperator: operatorHandles[0]}}, Subtasks: 1}
	if version >= 3 {
		op.Coordinator = inline
		plain.SubtaskStates = append(plain.SubtaskStates, metadata.SubtaskState{Index: 1, Finished: true})
		plain.Subtasks = 2
		if version >= 7 {
			plain.SubtaskStates[0].RefCheckpointID = new(int64)
		}
	}
	if version >= 5 {
		op.Name, op.UID = "Keyed Aggregation", "agg-uid"
		plain.Name = "Source: numbers"
	}
	md.Operators = []metadata.Operator{op, plain}
	if version >= 3 {
		md.Operators = append(md.Operators, metadata.Operator{ID: OperatorID(2), Parallelism: 1, MaxParallelism: 128, Finished: true})
	}
	if version >= 4 {
		md.Savepoint, md.Format, md.Action = true, "NATIVE", metadata.ActionNone
	}
	return md
}
