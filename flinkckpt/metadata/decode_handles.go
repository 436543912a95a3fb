package metadata

// Decoding of stream, keyed, operator and channel state handles (the
// layouts of Flink's MetadataV2V3SerializerBase and channel state
// serializers; see FORMATS.md section 2).

func (d *decoder) enter(what string) bool {
	if d.depth >= maxHandleDepth {
		d.fail(what, "handles nested deeper than %d", maxHandleDepth)
		return false
	}
	d.depth++
	return true
}

// addFile records a reference in chunks (growing from 16 to 4096 entries)
// that finishFiles joins into one slice of the exact length: about two
// FileRefs allocated per reference, where append would allocate up to five.
func (d *decoder) addFile(f FileRef) {
	f.Operator = d.op
	f.Changelog = d.inChangelog
	if n := len(d.files); n == 0 || len(d.files[n-1]) == cap(d.files[n-1]) {
		size := 16
		if n > 0 {
			size = min(2*cap(d.files[n-1]), 4096)
		}
		d.files = append(d.files, make([]FileRef, 0, size))
	}
	last := &d.files[len(d.files)-1]
	*last = append(*last, f)
	d.nfiles++
}

func (d *decoder) finishFiles() {
	if d.nfiles == 0 {
		return
	}
	if len(d.files) == 1 {
		d.md.Files = d.files[0]
		return
	}
	d.md.Files = make([]FileRef, 0, d.nfiles)
	for _, c := range d.files {
		d.md.Files = append(d.md.Files, c...)
	}
}

// appendDoubling appends like append but doubles the capacity when full, so
// that building a list of n items allocates at most about 2n items in total
// (append grows large slices by 1.25×, which allocates about 5n).
func appendDoubling[T any](s []T, v T) []T {
	if len(s) == cap(s) {
		ns := make([]T, len(s), max(2*cap(s), 16))
		copy(ns, s)
		s = ns
	}
	return append(s, v)
}

func (d *decoder) stream(what, field string) *StreamHandle {
	if field != "" {
		what += field
	}
	t := HandleType(d.u8(what, " type"))
	if d.err != nil || t == TypeNull {
		return nil
	}
	if !d.enter(what) {
		return nil
	}
	defer func() { d.depth-- }()
	h := d.newStream(t)
	switch t {
	case TypeByteStream:
		h.Name = d.utf(what, " name")
		h.Data = d.bytes(what, " bytes")
	case TypeFile:
		h.Size = d.i64(what, " size")
		h.Path = d.utf(what, " path")
		if d.err == nil {
			d.addFile(FileRef{Path: h.Path, Size: h.Size})
		}
	case TypeRelativeFile:
		h.Path = d.utf(what, " relative path")
		h.Size = d.i64(what, " size")
		if d.err == nil {
			d.addFile(FileRef{Path: h.Path, Size: h.Size, Relative: true})
		}
	case TypeKeyGroups:
		h.KeyGroupStart = d.i32(what, " key group start")
		h.Offsets = d.offsets(what, " key group count")
		h.Nested = d.stream(what, "")
	case TypeSegment:
		h.Start = d.i64(what, " segment start")
		h.Size = d.i64(what, " segment size")
		h.Scope = d.i32(what, " segment scope")
		h.Path = d.utf(what, " segment path")
		h.Name = d.utf(what, " segment logical id")
		if d.err == nil {
			d.addFile(FileRef{Path: h.Path, Size: h.Size, Offset: h.Start, Segment: true})
		}
	case TypeEmptySegment:
	default:
		d.off--
		d.fail(what+" type", "unknown stream handle type %d", t)
		return nil
	}
	return h
}

func (d *decoder) keyed(what, field string) *KeyedHandle {
	if field != "" {
		what += field
	}
	t := HandleType(d.u8(what, " type"))
	if d.err != nil || t == TypeNull {
		return nil
	}
	if !d.enter(what) {
		return nil
	}
	defer func() { d.depth-- }()
	h := &KeyedHandle{Type: t}
	switch t {
	case TypeKeyGroups, TypeSavepointKeyGroups, TypeKeyGroupsV2:
		h.KeyGroupStart = d.i32(what, " key group start")
		h.KeyGroupCount = int32(d.count(what, " key group count", 8))
		if d.err == nil {
			h.Offsets = d.longs(int(h.KeyGroupCount))
		}
		h.Stream = d.stream(what, "")
		if t == TypeKeyGroupsV2 {
			h.HandleID = d.utf(what, " handle id")
		}
	case TypeIncremental, TypeIncrementalV2:
		h.CheckpointID = d.i64(what, " checkpoint id")
		h.BackendID = d.utf(what, " backend id")
		h.KeyGroupStart = d.i32(what, " key group start")
		h.KeyGroupCount = d.i32(what, " key group count")
		if t == TypeIncrementalV2 {
			h.CheckpointedSize = d.i64(what, " checkpointed size")
		}
		h.Stream = d.stream(what, " meta data")
		h.Shared = d.namedList(what, " shared state")
		h.Private = d.namedList(what, " private state")
		if t == TypeIncrementalV2 {
			h.HandleID = d.utf(what, " handle id")
		}
	case TypeChangelog, TypeChangelogV2:
		h.KeyGroupStart = d.i32(what, " key group start")
		h.KeyGroupCount = d.i32(what, " key group count")
		h.CheckpointedSize = d.i64(what, " checkpointed size")
		n := d.count(what, " materialized count", 1)
		for i := 0; i < n && d.err == nil; i++ {
			h.Materialized = append(h.Materialized, d.keyed(what, " materialized"))
		}
		n = d.count(what, " non-materialized count", 1)
		for i := 0; i < n && d.err == nil; i++ {
			h.NonMaterialized = append(h.NonMaterialized, d.keyed(what, " non-materialized"))
		}
		h.MaterializationID = d.i64(what, " materialization id")
		if t == TypeChangelogV2 {
			h.CheckpointID = d.i64(what, " checkpoint id")
		}
		h.HandleID = d.utf(what, " handle id")
	case TypeChangelogBytes:
		h.KeyGroupStart = d.i32(what, " key group start")
		h.KeyGroupCount = d.i32(what, " key group count")
		h.From = d.i64(what, " from")
		h.To = d.i64(what, " to")
		n := d.count(what, " change count", 8)
		for i := 0; i < n && d.err == nil; i++ {
			kg := d.i32(what, " change key group")
			h.Changes = append(h.Changes, StateChange{KeyGroup: kg, Data: d.bytes(what, " change")})
		}
		h.HandleID = d.utf(what, " handle id")
	case TypeChangelogFile, TypeChangelogFileV2:
		h.KeyGroupStart = d.i32(what, " key group start")
		h.KeyGroupCount = d.i32(what, " key group count")
		n := d.count(what, " handle count", 9)
		for i := 0; i < n && d.err == nil; i++ {
			off := d.i64(what, " offset")
			d.inChangelog = true
			inc := d.stream(what, "")
			d.inChangelog = false
			h.Increments = append(h.Increments, OffsetHandle{Offset: off, Handle: inc})
		}
		h.StateSize = d.i64(what, " state size")
		h.CheckpointedSize = d.i64(what, " checkpointed size")
		h.HandleID = d.utf(what, " handle id")
		if t == TypeChangelogFileV2 {
			h.StorageID = d.utf(what, " storage id")
		}
	default:
		d.off--
		d.fail(what+" type", "unknown keyed state handle type %d", t)
		return nil
	}
	return h
}

func (d *decoder) namedList(what, field string) []NamedHandle {
	if field != "" {
		what += field
	}
	n := d.count(what, " count", 3)
	// A real entry takes at least 9 bytes; the count was only checked
	// against 3, so preallocate no more than the bytes left can hold.
	out := make([]NamedHandle, 0, min(n, d.left()/9))
	for i := 0; i < n && d.err == nil; i++ {
		p := d.utf(what, " local path")
		out = appendDoubling(out, NamedHandle{LocalPath: p, Handle: d.stream(what, "")})
	}
	return out
}

func (d *decoder) operatorHandle(what, field string) *OperatorHandle {
	if field != "" {
		what += field
	}
	t := HandleType(d.u8(what, " type"))
	if d.err != nil || t == TypeNull {
		return nil
	}
	if t != TypeOperatorStream && t != TypeFileMergingOperator {
		d.off--
		d.fail(what+" type", "unknown operator state handle type %d", t)
		return nil
	}
	h := &OperatorHandle{Type: t}
	n := d.count(what, " state count", 7)
	for i := 0; i < n && d.err == nil; i++ {
		var s OperatorStateInfo
		s.Name = d.utf(what, " state name")
		start := d.off
		s.Mode = StateMode(d.u8(what, " distribution mode"))
		if d.err == nil && s.Mode > 2 {
			d.off = start
			d.fail(what+" distribution mode", "mode %d, want 0, 1 or 2", s.Mode)
		}
		s.Offsets = d.offsets(what, " offset count")
		h.States = append(h.States, s)
	}
	if t == TypeFileMergingOperator {
		h.TaskOwnedDir = d.utf(what, " task-owned dir")
		h.SharedDir = d.utf(what, " shared dir")
		start := d.off
		switch b := d.u8(what, " empty flag"); {
		case d.err != nil:
		case b > 1:
			d.off = start
			d.fail(what+" empty flag", "boolean %d", b)
		default:
			h.Empty = b == 1
		}
	}
	h.Stream = d.stream(what, "")
	return h
}

func (d *decoder) channel(version int, what string) ChannelHandle {
	var h ChannelHandle
	if version >= 6 {
		h.Type = ChannelType(d.u8(what, " type"))
		if d.err != nil {
			return h
		}
		input := what == "input channel state"
		ok := (input && (h.Type == ChannelInput || h.Type == ChannelMergedInput)) ||
			(!input && (h.Type == ChannelOutput || h.Type == ChannelMergedOutput))
		if !ok {
			d.off--
			d.fail(what+" type", "unexpected channel state handle type %d", h.Type)
			return h
		}
		if h.Type == ChannelMergedInput || h.Type == ChannelMergedOutput {
			h.Subtask = d.i32(what, " subtask")
			h.Size = d.i64(what, " size")
			h.Stream = d.stream(what, "")
			h.Merged = d.bytes(what, " channel offsets")
			return h
		}
	}
	h.Subtask = d.i32(what, " subtask")
	h.Info[0] = d.i32(what, " gate or partition")
	h.Info[1] = d.i32(what, " channel or subpartition")
	h.Offsets = d.offsets(what, " offset count")
	h.Size = d.i64(what, " size")
	h.Stream = d.stream(what, "")
	return h
}
