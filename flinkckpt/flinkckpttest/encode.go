package flinkckpttest

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"unicode/utf16"

	"github.com/resumekit/resumekit/flinkckpt/metadata"
)

// Encode returns md as Flink writes a _metadata file of md.Version (2 to 7):
// every handle type, master states, finished operators and subtasks,
// channel state. Derived fields (Files, MasterStates, Operator.Subtasks,
// Size) are ignored. For version 4 and later, md.Properties is written
// verbatim when set; otherwise Encode writes a small Java serialization
// stream naming CheckpointType or SavepointType, md.Format and, for a
// drained savepoint, TERMINATE — enough for resumekit (and any reader that
// scans for those names), though not a stream Java can deserialize; the
// post-checkpoint action is md.Action (TERMINATE when md.Drained, NONE when
// empty).
func Encode(md *metadata.Checkpoint) ([]byte, error) {
	e := &encoder{v: md.Version}
	if err := e.checkpoint(md); err != nil {
		return nil, err
	}
	return e.b, nil
}

// EncodeTo writes what Encode returns to w as it goes, holding a buffer of
// about a MiB rather than the whole file (inline byte streams are written
// straight from md), and returns the number of bytes written. Tests use it
// for _metadata files of hundreds of MB.
func EncodeTo(w io.Writer, md *metadata.Checkpoint) (int64, error) {
	e := &encoder{v: md.Version, w: w}
	if err := e.checkpoint(md); err != nil {
		return e.n, err
	}
	e.flush()
	return e.n, e.err
}

func (e *encoder) checkpoint(md *metadata.Checkpoint) error {
	if md.Version < 2 || md.Version > 7 {
		return fmt.Errorf("flinkckpttest: cannot encode version %d", md.Version)
	}
	e.u32(0x4960672D)
	e.u32(uint32(md.Version))
	e.i64(md.CheckpointID)
	e.i32(int32(len(md.Masters)))
	for _, ms := range md.Masters {
		inner := &encoder{}
		inner.i32(ms.Version)
		inner.utf(ms.Name)
		inner.bytes(ms.Data)
		e.u32(0xC96B1696)
		e.i32(int32(len(inner.b)))
		e.b = append(e.b, inner.b...)
	}
	e.i32(int32(len(md.Operators)))
	for i := range md.Operators {
		e.operator(&md.Operators[i])
	}
	if md.Version >= 4 {
		if md.Properties != nil {
			e.b = append(e.b, md.Properties...)
		} else {
			e.b = append(e.b, properties(md.Savepoint, md.Format, action(md))...)
		}
	}
	return e.err
}

type encoder struct {
	b   []byte
	v   int
	err error
	// w, when set, receives the bytes as they are encoded (EncodeTo); n
	// counts what it took.
	w io.Writer
	n int64
}

// flush hands the buffered bytes to w (EncodeTo only).
func (e *encoder) flush() {
	if e.w == nil || len(e.b) == 0 || e.err != nil {
		return
	}
	n, err := e.w.Write(e.b)
	e.n += int64(n)
	if err != nil {
		e.err = fmt.Errorf("flinkckpttest: write: %w", err)
	}
	e.b = e.b[:0]
}

func (e *encoder) u8(v byte)    { e.b = append(e.b, v) }
func (e *encoder) u32(v uint32) { e.b = binary.BigEndian.AppendUint32(e.b, v) }
func (e *encoder) i32(v int32)  { e.u32(uint32(v)) }
func (e *encoder) i64(v int64)  { e.b = binary.BigEndian.AppendUint64(e.b, uint64(v)) }
func (e *encoder) bytes(b []byte) {
	e.i32(int32(len(b)))
	if e.w != nil && len(b) >= 64<<10 {
		// Large inline data goes to w as it is, not through the buffer.
		e.flush()
		if e.err == nil {
			n, err := e.w.Write(b)
			e.n += int64(n)
			if err != nil {
				e.err = fmt.Errorf("flinkckpttest: write: %w", err)
			}
		}
		return
	}
	e.b = append(e.b, b...)
}

// utf writes s as Java's DataOutputStream.writeUTF does (modified UTF-8).
func (e *encoder) utf(s string) {
	m := ModifiedUTF8(s)
	if len(m) > 0xFFFF {
		e.err = fmt.Errorf("flinkckpttest: string of %d bytes is too long for writeUTF", len(m))
		return
	}
	e.b = binary.BigEndian.AppendUint16(e.b, uint16(len(m)))
	e.b = append(e.b, m...)
}

// ModifiedUTF8 encodes s as Java's modified UTF-8: NUL as C0 80 and
// characters outside the BMP as two encoded surrogates.
func ModifiedUTF8(s string) []byte {
	out := make([]byte, 0, len(s))
	for _, r := range s {
		var units []uint16
		if r >= 0x10000 {
			a, b := utf16.EncodeRune(r)
			units = []uint16{uint16(a), uint16(b)}
		} else {
			units = []uint16{uint16(r)}
		}
		for _, c := range units {
			switch {
			case c != 0 && c < 0x80:
				out = append(out, byte(c))
			case c < 0x800:
				out = append(out, 0xC0|byte(c>>6), 0x80|byte(c&0x3F))
			default:
				out = append(out, 0xE0|byte(c>>12), 0x80|byte(c>>6&0x3F), 0x80|byte(c&0x3F))
			}
		}
	}
	return out
}

func (e *encoder) operator(op *metadata.Operator) {
	if e.v >= 5 {
		e.utf(op.Name)
		e.utf(op.UID)
	}
	id, err := hex.DecodeString(op.ID)
	if err != nil || len(id) != 16 {
		e.err = fmt.Errorf("flinkckpttest: operator id %q is not 32 hex characters", op.ID)
		return
	}
	e.b = append(e.b, id...)
	e.i32(int32(op.Parallelism))
	e.i32(int32(op.MaxParallelism))
	if e.v == 2 {
		e.i32(1)
	} else {
		e.stream(op.Coordinator)
	}
	if op.Finished && e.v >= 3 {
		e.i32(-1)
		return
	}
	e.i32(int32(len(op.SubtaskStates)))
	for i := range op.SubtaskStates {
		e.subtask(&op.SubtaskStates[i])
		if len(e.b) >= 1<<20 {
			e.flush()
		}
	}
}

func (e *encoder) subtask(st *metadata.SubtaskState) {
	if st.Finished && e.v >= 3 {
		e.i32(-st.Index - 1)
		return
	}
	e.i32(st.Index)
	if e.v == 2 {
		e.i64(st.Duration)
		e.i32(0)
	}
	for _, h := range []*metadata.OperatorHandle{st.ManagedOperator, st.RawOperator} {
		if h == nil {
			e.i32(0)
			continue
		}
		e.i32(1)
		e.operatorHandle(h)
	}
	e.keyed(st.ManagedKeyed)
	e.keyed(st.RawKeyed)
	if e.v >= 3 {
		for _, list := range [][]metadata.ChannelHandle{st.InputChannels, st.ResultSubpartitions} {
			e.i32(int32(len(list)))
			for i := range list {
				e.channel(&list[i])
			}
		}
	}
	if e.v >= 7 {
		if st.RefCheckpointID != nil {
			e.u8(1)
			e.i64(*st.RefCheckpointID)
		} else {
			e.u8(0)
		}
	}
}

func (e *encoder) stream(h *metadata.StreamHandle) {
	if h == nil {
		e.u8(byte(metadata.TypeNull))
		return
	}
	e.u8(byte(h.Type))
	switch h.Type {
	case metadata.TypeByteStream:
		e.utf(h.Name)
		e.bytes(h.Data)
	case metadata.TypeFile:
		e.i64(h.Size)
		e.utf(h.Path)
	case metadata.TypeRelativeFile:
		e.utf(h.Path)
		e.i64(h.Size)
	case metadata.TypeKeyGroups:
		e.i32(h.KeyGroupStart)
		e.longs(h.Offsets)
		e.stream(h.Nested)
	case metadata.TypeSegment:
		e.i64(h.Start)
		e.i64(h.Size)
		e.i32(h.Scope)
		e.utf(h.Path)
		e.utf(h.Name)
	case metadata.TypeEmptySegment:
	default:
		e.err = fmt.Errorf("flinkckpttest: unknown stream handle type %d", h.Type)
	}
}

func (e *encoder) longs(v []int64) {
	e.i32(int32(len(v)))
	for _, x := range v {
		e.i64(x)
	}
}

func (e *encoder) keyed(h *metadata.KeyedHandle) {
	if h == nil {
		e.u8(byte(metadata.TypeNull))
		return
	}
	e.u8(byte(h.Type))
	switch h.Type {
	case metadata.TypeKeyGroups, metadata.TypeSavepointKeyGroups, metadata.TypeKeyGroupsV2:
		e.i32(h.KeyGroupStart)
		e.longs(h.Offsets)
		e.stream(h.Stream)
		if h.Type == metadata.TypeKeyGroupsV2 {
			e.utf(h.HandleID)
		}
	case metadata.TypeIncremental, metadata.TypeIncrementalV2:
		e.i64(h.CheckpointID)
		e.utf(h.BackendID)
		e.i32(h.KeyGroupStart)
		e.i32(h.KeyGroupCount)
		if h.Type == metadata.TypeIncrementalV2 {
			e.i64(h.CheckpointedSize)
		}
		e.stream(h.Stream)
		for _, list := range [][]metadata.NamedHandle{h.Shared, h.Private} {
			e.i32(int32(len(list)))
			for _, n := range list {
				e.utf(n.LocalPath)
				e.stream(n.Handle)
			}
		}
		if h.Type == metadata.TypeIncrementalV2 {
			e.utf(h.HandleID)
		}
	case metadata.TypeChangelog, metadata.TypeChangelogV2:
		e.i32(h.KeyGroupStart)
		e.i32(h.KeyGroupCount)
		e.i64(h.CheckpointedSize)
		for _, list := range [][]*metadata.KeyedHandle{h.Materialized, h.NonMaterialized} {
			e.i32(int32(len(list)))
			for _, k := range list {
				e.keyed(k)
			}
		}
		e.i64(h.MaterializationID)
		if h.Type == metadata.TypeChangelogV2 {
			e.i64(h.CheckpointID)
		}
		e.utf(h.HandleID)
	case metadata.TypeChangelogBytes:
		e.i32(h.KeyGroupStart)
		e.i32(h.KeyGroupCount)
		e.i64(h.From)
		e.i64(h.To)
		e.i32(int32(len(h.Changes)))
		for _, c := range h.Changes {
			e.i32(c.KeyGroup)
			e.bytes(c.Data)
		}
		e.utf(h.HandleID)
	case metadata.TypeChangelogFile, metadata.TypeChangelogFileV2:
		e.i32(h.KeyGroupStart)
		e.i32(h.KeyGroupCount)
		e.i32(int32(len(h.Increments)))
		for _, inc := range h.Increments {
			e.i64(inc.Offset)
			e.stream(inc.Handle)
		}
		e.i64(h.StateSize)
		e.i64(h.CheckpointedSize)
		e.utf(h.HandleID)
		if h.Type == metadata.TypeChangelogFileV2 {
			e.utf(h.StorageID)
		}
	default:
		e.err = fmt.Errorf("flinkckpttest: unknown keyed state handle type %d", h.Type)
	}
}

func (e *encoder) operatorHandle(h *metadata.OperatorHandle) {
	e.u8(byte(h.Type))
	if h.Type != metadata.TypeOperatorStream && h.Type != metadata.TypeFileMergingOperator {
		e.err = fmt.Errorf("flinkckpttest: unknown operator state handle type %d", h.Type)
		return
	}
	e.i32(int32(len(h.States)))
	for _, s := range h.States {
		e.utf(s.Name)
		e.u8(byte(s.Mode))
		e.longs(s.Offsets)
	}
	if h.Type == metadata.TypeFileMergingOperator {
		e.utf(h.TaskOwnedDir)
		e.utf(h.SharedDir)
		if h.Empty {
			e.u8(1)
		} else {
			e.u8(0)
		}
	}
	e.stream(h.Stream)
}

func (e *encoder) channel(h *metadata.ChannelHandle) {
	if e.v >= 6 {
		e.u8(byte(h.Type))
		if h.Type == metadata.ChannelMergedInput || h.Type == metadata.ChannelMergedOutput {
			e.i32(h.Subtask)
			e.i64(h.Size)
			e.stream(h.Stream)
			e.bytes(h.Merged)
			return
		}
	}
	e.i32(h.Subtask)
	e.i32(h.Info[0])
	e.i32(h.Info[1])
	e.longs(h.Offsets)
	e.i64(h.Size)
	e.stream(h.Stream)
}

// Properties returns a Java-serialization-shaped CheckpointProperties
// stream: a CheckpointType for checkpoints, a SavepointType with format
// (CANONICAL or NATIVE; CANONICAL when empty) and post-checkpoint action
// (TERMINATE when drained, NONE otherwise) for savepoints.
func Properties(savepoint bool, format metadata.Format, drained bool) []byte {
	a := metadata.ActionNone
	if drained {
		a = metadata.ActionTerminate
	}
	return properties(savepoint, format, a)
}

// action is the post-checkpoint action Encode writes for md.
func action(md *metadata.Checkpoint) metadata.PostCheckpointAction {
	switch {
	case md.Drained:
		return metadata.ActionTerminate
	case md.Action != "":
		return md.Action
	}
	return metadata.ActionNone
}

func properties(savepoint bool, format metadata.Format, action metadata.PostCheckpointAction) []byte {
	j := &javaStream{}
	j.b = append(j.b, 0xAC, 0xED, 0x00, 0x05)
	j.classDesc("org.apache.flink.runtime.checkpoint.CheckpointProperties",
		[]field{{'Z', "forced", ""}, {'L', "checkpointType", "Lorg/apache/flink/runtime/checkpoint/SnapshotType;"}})
	j.b = append(j.b, 0) // forced = false
	if !savepoint {
		j.classDesc("org.apache.flink.runtime.checkpoint.CheckpointType",
			[]field{{'L', "name", "Ljava/lang/String;"}})
		j.str("Checkpoint")
		return j.b
	}
	if format == "" {
		format = "CANONICAL"
	}
	j.classDesc("org.apache.flink.runtime.checkpoint.SavepointType",
		[]field{{'L', "formatType", "Lorg/apache/flink/core/execution/SavepointFormatType;"},
			{'L', "name", "Ljava/lang/String;"},
			{'L', "postCheckpointAction", "Lorg/apache/flink/runtime/checkpoint/SavepointType$PostCheckpointAction;"}})
	j.enum("org.apache.flink.core.execution.SavepointFormatType", string(format))
	j.str("Savepoint")
	j.enum("org.apache.flink.runtime.checkpoint.SavepointType$PostCheckpointAction", string(action))
	return j.b
}

type field struct {
	code      byte
	name, typ string
}

type javaStream struct{ b []byte }

func (j *javaStream) utf(s string) {
	j.b = binary.BigEndian.AppendUint16(j.b, uint16(len(s)))
	j.b = append(j.b, s...)
}

func (j *javaStream) str(s string) { j.b = append(j.b, 0x74); j.utf(s) }

// classDesc starts a new object: TC_OBJECT, TC_CLASSDESC name, a zero
// serialVersionUID, SC_SERIALIZABLE, the fields, TC_ENDBLOCKDATA, no
// superclass.
func (j *javaStream) classDesc(name string, fields []field) {
	j.b = append(j.b, 0x73, 0x72)
	j.utf(name)
	j.b = append(j.b, 0, 0, 0, 0, 0, 0, 0, 0, 0x02)
	j.b = binary.BigEndian.AppendUint16(j.b, uint16(len(fields)))
	for _, f := range fields {
		j.b = append(j.b, f.code)
		j.utf(f.name)
		if f.typ != "" {
			j.str(f.typ)
		}
	}
	j.b = append(j.b, 0x78, 0x70)
}

func (j *javaStream) enum(class, constant string) {
	j.b = append(j.b, 0x7E, 0x72)
	j.utf(class)
	j.b = append(j.b, 0, 0, 0, 0, 0, 0, 0, 0, 0x12, 0, 0, 0x78, 0x70)
	j.str(constant)
}
