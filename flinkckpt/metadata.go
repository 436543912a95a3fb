package flinkckpt

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// DefaultMaxSize is the default limit on the size of a _metadata file.
const DefaultMaxSize int64 = 256 << 20

// Metadata is a parsed _metadata file.
type Metadata struct {
	// Version of the format, 2 to 7.
	Version int
	// CheckpointID; savepoints share the counter with checkpoints.
	CheckpointID int64
	// Savepoint is true for savepoints: from the properties (v4+), or for
	// v2/v3 from the directory name the caller passed (savepoint-…).
	Savepoint bool
	// Format is "CANONICAL" or "NATIVE" for savepoints whose properties say
	// so, "" otherwise.
	Format string
	// Drained is true for a savepoint taken by "stop --drain" (the
	// properties' post-checkpoint action is TERMINATE): the old job emitted
	// its final watermark and flushed its windows.
	Drained bool
	// MasterStates lists the master hooks' state names.
	MasterStates []string
	// Masters holds the master states in full.
	Masters   []MasterState
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
	Name, UID      string
	Parallelism    int
	MaxParallelism int
	// Subtasks is the number of subtask states recorded.
	Subtasks int
	// Finished is an operator that had fully finished (v3+, count -1).
	Finished bool
	// Coordinator is the operator coordinator's state (v3+).
	Coordinator   *StreamHandle
	SubtaskStates []SubtaskState
}

// FileRef is one file referenced by the state.
type FileRef struct {
	// Path is the Flink file system URI of an absolute reference, or the
	// path relative to the _metadata directory.
	Path     string
	Relative bool
	// Size is the state size recorded for the file. For a segment of a
	// merged file (Segment), the file must hold at least Offset+Size bytes.
	Size    int64
	Offset  int64
	Segment bool
	// Operator is the id of the operator whose state references the file.
	Operator string
}

// ErrMalformed is wrapped by every error about the content of a _metadata
// file (check with errors.Is); the error is a *FormatError.
var ErrMalformed = errors.New("flinkckpt: malformed _metadata")

// ErrTooLarge is wrapped when a _metadata file is larger than the limit.
var ErrTooLarge = errors.New("flinkckpt: _metadata too large")

// FormatError says where and what a _metadata file is malformed.
type FormatError struct {
	Offset int64  // byte offset where the problem was found
	What   string // what was being read
	Msg    string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("flinkckpt: malformed _metadata at byte %d reading %s: %s", e.Offset, e.What, e.Msg)
}

// Is reports ErrMalformed.
func (e *FormatError) Is(target error) bool { return target == ErrMalformed }

// ReadOptions configures ReadMetadataWith. A nil *ReadOptions means defaults.
type ReadOptions struct {
	// MaxSize limits the file size; 0 means DefaultMaxSize.
	MaxSize int64
	// Dir is the name (or key) of the directory holding the file; for v2/v3,
	// which record no properties, a name starting with "savepoint-" marks a
	// savepoint.
	Dir string
}

// ReadMetadata parses a _metadata file with default options.
func ReadMetadata(r io.Reader) (*Metadata, error) { return ReadMetadataWith(r, nil) }

// ReadMetadataWith parses a _metadata file. It reads at most the size limit
// plus one byte, and fails with ErrTooLarge past it.
func ReadMetadataWith(r io.Reader, opts *ReadOptions) (*Metadata, error) {
	limit := maxSize(opts)
	var buf bytes.Buffer
	n, err := buf.ReadFrom(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("flinkckpt: read _metadata: %w", err)
	}
	if n > limit {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, limit)
	}
	return ParseMetadata(buf.Bytes(), opts)
}

func maxSize(opts *ReadOptions) int64 {
	if opts == nil || opts.MaxSize <= 0 {
		return DefaultMaxSize
	}
	return opts.MaxSize
}

// ParseMetadata parses a _metadata file held in memory. The returned
// Metadata may share inline byte slices with data.
func ParseMetadata(data []byte, opts *ReadOptions) (*Metadata, error) {
	if int64(len(data)) > maxSize(opts) {
		return nil, fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, len(data), maxSize(opts))
	}
	d := &decoder{buf: data}
	md := d.metadata()
	if d.err != nil {
		return nil, d.err
	}
	if md.Version <= 3 && opts != nil && isSavepointDir(opts.Dir) {
		md.Savepoint = true
	}
	return md, nil
}

// isSavepointDir reports whether the last element of dir is named like a
// savepoint directory.
func isSavepointDir(dir string) bool {
	dir = strings.TrimRight(dir, "/")
	if i := strings.LastIndexByte(dir, '/'); i >= 0 {
		dir = dir[i+1:]
	}
	return strings.HasPrefix(dir, "savepoint-")
}

// decoder reads big-endian values with a sticky error: after the first
// error every read returns zero values, and loops stop on d.err.
type decoder struct {
	buf   []byte
	off   int
	depth int
	err   error
	md    *Metadata
	op    string // id of the operator being read
}

func (d *decoder) fail(what, format string, args ...any) {
	if d.err == nil {
		d.err = &FormatError{Offset: int64(d.off), What: what, Msg: fmt.Sprintf(format, args...)}
	}
}

func (d *decoder) left() int { return len(d.buf) - d.off }

// The read helpers take what is being read in two parts (what, field),
// joined only when an error is reported, so that reading allocates nothing
// for labels.

func (d *decoder) need(n int, what, field string) bool {
	if d.err != nil {
		return false
	}
	if n < 0 || n > d.left() {
		d.fail(what+field, "need %d bytes, %d left", n, d.left())
		return false
	}
	return true
}

func (d *decoder) u8(what, field string) byte {
	if !d.need(1, what, field) {
		return 0
	}
	d.off++
	return d.buf[d.off-1]
}

func (d *decoder) i32(what, field string) int32 {
	if !d.need(4, what, field) {
		return 0
	}
	v := binary.BigEndian.Uint32(d.buf[d.off:])
	d.off += 4
	return int32(v)
}

func (d *decoder) i64(what, field string) int64 {
	if !d.need(8, what, field) {
		return 0
	}
	v := binary.BigEndian.Uint64(d.buf[d.off:])
	d.off += 8
	return int64(v)
}

// count reads an int32 count of elements that take at least min bytes each
// and checks it against the bytes left before anything is allocated.
func (d *decoder) count(what, field string, min int) int {
	start := d.off
	n := d.i32(what, field)
	if d.err != nil {
		return 0
	}
	if n < 0 {
		d.off = start
		d.fail(what+field, "negative count %d", n)
		return 0
	}
	if int64(n)*int64(min) > int64(d.left()) {
		d.off = start
		d.fail(what+field, "count %d needs at least %d bytes, %d left", n, int64(n)*int64(min), d.left())
		return 0
	}
	return int(n)
}

func (d *decoder) bytes(what, field string) []byte {
	n := d.count(what, field, 1)
	if !d.need(n, what, field) {
		return nil
	}
	b := d.buf[d.off : d.off+n : d.off+n]
	d.off += n
	return b
}

func (d *decoder) offsets(what, field string) []int64 {
	n := d.count(what, field, 8)
	if d.err != nil {
		return nil
	}
	return d.longs(n)
}

func (d *decoder) longs(n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(binary.BigEndian.Uint64(d.buf[d.off:]))
		d.off += 8
	}
	return out
}

// utf reads a Java modified UTF-8 string (uint16 length).
func (d *decoder) utf(what, field string) string {
	if !d.need(2, what, field) {
		return ""
	}
	n := int(binary.BigEndian.Uint16(d.buf[d.off:]))
	d.off += 2
	if !d.need(n, what, field) {
		return ""
	}
	b := d.buf[d.off : d.off+n]
	s, ok := decodeModifiedUTF8(b)
	if !ok {
		d.fail(what+field, "invalid modified UTF-8")
		return ""
	}
	d.off += n
	return s
}

func decodeModifiedUTF8(b []byte) (string, bool) {
	ascii := true
	for _, c := range b {
		if c == 0 || c >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return string(b), true
	}
	u := make([]uint16, 0, len(b))
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c == 0:
			return "", false
		case c < 0x80:
			u = append(u, uint16(c))
			i++
		case c&0xE0 == 0xC0:
			if i+1 >= len(b) || b[i+1]&0xC0 != 0x80 {
				return "", false
			}
			u = append(u, uint16(c&0x1F)<<6|uint16(b[i+1]&0x3F))
			i += 2
		case c&0xF0 == 0xE0:
			if i+2 >= len(b) || b[i+1]&0xC0 != 0x80 || b[i+2]&0xC0 != 0x80 {
				return "", false
			}
			u = append(u, uint16(c&0x0F)<<12|uint16(b[i+1]&0x3F)<<6|uint16(b[i+2]&0x3F))
			i += 3
		default:
			return "", false
		}
	}
	var sb strings.Builder
	for _, r := range utf16.Decode(u) {
		if r == utf8.RuneError {
			r = '\uFFFD'
		}
		sb.WriteRune(r)
	}
	return sb.String(), true
}

func (d *decoder) metadata() *Metadata {
	md := &Metadata{}
	d.md = md
	if magic := uint32(d.i32("magic number", "")); d.err == nil && magic != metadataMagic {
		d.off = 0
		d.fail("magic number", "got %#08x, want %#08x (not a Flink _metadata file)", magic, metadataMagic)
	}
	vStart := d.off
	v := d.i32("version", "")
	if d.err == nil && (v < 2 || v > 7) {
		d.off = vStart
		d.fail("version", "unsupported version %d (want 2 to 7)", v)
	}
	md.Version = int(v)
	idStart := d.off
	md.CheckpointID = d.i64("checkpoint id", "")
	if d.err == nil && md.CheckpointID < 0 {
		d.off = idStart
		d.fail("checkpoint id", "negative checkpoint id %d", md.CheckpointID)
	}
	nm := d.count("master state count", "", 8)
	for i := 0; i < nm && d.err == nil; i++ {
		d.masterState(md)
	}
	nop := d.count("operator count", "", 25)
	for i := 0; i < nop && d.err == nil; i++ {
		md.Operators = append(md.Operators, d.operator(md.Version))
	}
	if d.err != nil {
		return md
	}
	if md.Version >= 4 {
		d.properties(md)
	} else if d.left() > 0 {
		d.fail("end of file", "%d trailing bytes after the last operator", d.left())
	}
	md.Size = int64(d.off)
	return md
}

func (d *decoder) masterState(md *Metadata) {
	start := d.off
	if magic := uint32(d.i32("master state magic number", "")); d.err == nil && magic != masterStateMagic {
		d.off = start
		d.fail("master state magic number", "got %#08x, want %#08x", magic, masterStateMagic)
		return
	}
	n := int(d.i32("master state length", ""))
	if d.err != nil {
		return
	}
	if n <= 0 || n > d.left() {
		d.off -= 4
		d.fail("master state length", "length %d, %d bytes left", n, d.left())
		return
	}
	end := d.off + n
	sub := &decoder{buf: d.buf[:end], off: d.off}
	var ms MasterState
	ms.Version = sub.i32("master state version", "")
	ms.Name = sub.utf("master state name", "")
	ms.Data = sub.bytes("master state data", "")
	if sub.err == nil && sub.off != end {
		sub.fail("master state", "%d trailing bytes", end-sub.off)
	}
	if sub.err != nil {
		d.err = sub.err
		return
	}
	d.off = end
	md.Masters = append(md.Masters, ms)
	md.MasterStates = append(md.MasterStates, ms.Name)
}

func (d *decoder) operator(version int) Operator {
	var op Operator
	if version >= 5 {
		op.Name = d.utf("operator name", "")
		op.UID = d.utf("operator uid", "")
	}
	if !d.need(16, "operator id", "") {
		return op
	}
	op.ID = hex.EncodeToString(d.buf[d.off : d.off+16])
	d.off += 16
	d.op = op.ID
	op.Parallelism = int(d.i32("parallelism", ""))
	op.MaxParallelism = int(d.i32("max parallelism", ""))
	if version == 2 {
		start := d.off
		if cl := d.i32("chain length", ""); d.err == nil && cl != 1 {
			d.off = start
			d.fail("chain length", "chain length %d, want 1", cl)
		}
	} else {
		op.Coordinator = d.stream("coordinator state", "")
	}
	start := d.off
	n := d.i32("subtask count", "")
	if d.err != nil {
		return op
	}
	if n == -1 && version >= 3 {
		op.Finished = true
		return op
	}
	d.off = start
	cnt := d.count("subtask count", "", 4)
	for i := 0; i < cnt && d.err == nil; i++ {
		op.SubtaskStates = append(op.SubtaskStates, d.subtask(version))
	}
	op.Subtasks = len(op.SubtaskStates)
	return op
}

func (d *decoder) subtask(version int) SubtaskState {
	var st SubtaskState
	st.Index = d.i32("subtask index", "")
	if d.err != nil {
		return st
	}
	if version >= 3 && st.Index < 0 {
		st.Finished = true
		st.Index = -st.Index - 1
		return st
	}
	if version == 2 {
		st.Duration = d.i64("subtask duration", "")
		start := d.off
		if n := d.i32("legacy state count", ""); d.err == nil && n != 0 {
			d.off = start
			d.fail("legacy state count", "legacy (Flink 1.1) state count %d, want 0", n)
			return st
		}
	}
	if d.i32("managed operator state flag", "") != 0 {
		st.ManagedOperator = d.operatorHandle("managed operator state", "")
	}
	if d.i32("raw operator state flag", "") != 0 {
		st.RawOperator = d.operatorHandle("raw operator state", "")
	}
	st.ManagedKeyed = d.keyed("managed keyed state", "")
	st.RawKeyed = d.keyed("raw keyed state", "")
	if version >= 3 {
		n := d.count("input channel state count", "", 1)
		for i := 0; i < n && d.err == nil; i++ {
			st.InputChannels = append(st.InputChannels, d.channel(version, "input channel state"))
		}
		n = d.count("result subpartition state count", "", 1)
		for i := 0; i < n && d.err == nil; i++ {
			st.ResultSubpartitions = append(st.ResultSubpartitions, d.channel(version, "result subpartition state"))
		}
	}
	if version >= 7 {
		switch m := d.u8("reference checkpoint id marker", ""); {
		case d.err != nil:
		case m == 1:
			id := d.i64("reference checkpoint id", "")
			st.RefCheckpointID = &id
		case m != 0:
			d.off--
			d.fail("reference checkpoint id marker", "marker %d, want 0 or 1", m)
		}
	}
	return st
}

func (d *decoder) enter(what string) bool {
	if d.depth >= maxHandleDepth {
		d.fail(what, "handles nested deeper than %d", maxHandleDepth)
		return false
	}
	d.depth++
	return true
}

func (d *decoder) addFile(f FileRef) {
	f.Operator = d.op
	d.md.Files = appendDoubling(d.md.Files, f)
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
	t := d.u8(what, " type")
	if d.err != nil || t == TypeNull {
		return nil
	}
	if !d.enter(what) {
		return nil
	}
	defer func() { d.depth-- }()
	h := &StreamHandle{Type: t}
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
	t := d.u8(what, " type")
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
			h.Increments = append(h.Increments, OffsetHandle{Offset: off, Handle: d.stream(what, "")})
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
	var out []NamedHandle
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
	t := d.u8(what, " type")
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
		s.Mode = d.u8(what, " distribution mode")
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
		h.Type = d.u8(what, " type")
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

// Java serialization markers of CheckpointProperties (Flink 1.16+). Scanning
// for the class and enum names is enough to tell checkpoints from savepoints;
// resumekit does not implement Java deserialization.
var (
	javaStreamMagic = []byte{0xAC, 0xED, 0x00, 0x05}
	savepointClass  = []byte("org.apache.flink.runtime.checkpoint.SavepointType")
	checkpointClass = []byte("org.apache.flink.runtime.checkpoint.CheckpointType")
	enumCanonical   = javaString("CANONICAL")
	enumNative      = javaString("NATIVE")
	enumTerminate   = javaString("TERMINATE")
)

// javaString is a short string as ObjectOutputStream writes it (TC_STRING).
func javaString(s string) []byte {
	return append([]byte{0x74, 0, byte(len(s))}, s...)
}

func (d *decoder) properties(md *Metadata) {
	rest := d.buf[d.off:]
	walkJava(d)
	if d.err != nil {
		return
	}
	md.Properties = rest
	switch {
	case bytes.Contains(rest, savepointClass):
		md.Savepoint = true
		switch {
		case bytes.Contains(rest, enumCanonical):
			md.Format = "CANONICAL"
		case bytes.Contains(rest, enumNative):
			md.Format = "NATIVE"
		}
		md.Drained = bytes.Contains(rest, enumTerminate)
	case bytes.Contains(rest, checkpointClass):
	}
}
