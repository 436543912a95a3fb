package flinkckpttest

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"

	"github.com/klauspost/compress/snappy"

	"github.com/resumekit/resumekit/flinkckpt/jobgraph"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sourcestate"
)

// Source describes one FLIP-27 source operator to put in a snapshot: its
// reader state (a "SourceReaderState" list per subtask) and its enumerator
// state (the operator coordinator state). The zero Parallelism means 1.
// Build the splits and the enumerator with the Kafka…, Paimon…, Monitor…
// and MySQL… functions, or give raw ones for sources resumekit does not
// know; LegacyMonitorSource writes a legacy SourceFunction's list states.
type Source struct {
	// UID names the operator; its id is jobgraph.OperatorID(UID) unless
	// OperatorID is set.
	UID        string
	OperatorID string
	// Name is recorded from _metadata version 5 on.
	Name        string
	Parallelism int
	// Splits are the reader splits; each goes to the subtask its Subtask
	// field names (taken modulo Parallelism).
	Splits []sourcestate.RawSplit
	// Coordinator is the enumerator state; nil writes none.
	Coordinator *sourcestate.Coordinator
	// Compressed writes the reader state streams Snappy-compressed, as
	// execution.checkpointing.snapshot-compression does.
	Compressed bool
	// InFile writes each subtask's reader state to a file of the snapshot
	// (relative in savepoints, absolute in checkpoints) instead of inline.
	InFile bool
	// ListStates, when set, make the source a legacy SourceFunction in a
	// StreamSource operator: its operator list states are written instead
	// of the reader state, and Splits are ignored (see
	// LegacyMonitorSource). Compressed and InFile apply to them alike.
	ListStates []ListState
}

// ListState is an operator list state of a legacy SourceFunction,
// redistributed by splitting on restore (Flink's
// OperatorStateStore.getListState): its name and its elements.
type ListState struct {
	Name     string
	Elements []ListElement
}

// ListElement is one element of a ListState: its bytes as the state's
// serializer writes them (no framing; a Long is 8 bytes), on the subtask
// Subtask names (taken modulo the source's Parallelism).
type ListElement struct {
	Subtask int32
	Data    []byte
}

// ID returns the source's operator id.
func (s *Source) ID() string {
	if s.OperatorID != "" {
		return s.OperatorID
	}
	return jobgraph.OperatorID(s.UID)
}

// StateFile is a state file a source operator references.
type StateFile struct {
	// Name is the file's name in the snapshot dir.
	Name string
	Data []byte
}

// Operator returns the source as a _metadata operator of version
// (2 to 7): inline reader state streams, or, with InFile, references to
// files whose contents are returned; file(name) gives the handle of a file
// named name (nil means relative handles). Version 2 records no
// coordinator state.
func (s *Source) Operator(version int, file func(name string, size int64) *metadata.StreamHandle) (metadata.Operator, []StateFile) {
	par := max(s.Parallelism, 1)
	op := metadata.Operator{ID: s.ID(), Parallelism: par, MaxParallelism: 128, Subtasks: par}
	if version >= 5 {
		op.Name, op.UID = s.Name, s.UID
		if op.Name == "" {
			op.Name = "Source: " + s.UID
		}
	}
	if s.Coordinator != nil && version >= 3 {
		op.Coordinator = &metadata.StreamHandle{Type: metadata.TypeByteStream, Name: op.ID, Data: EncodeCoordinator(*s.Coordinator)}
	}
	subtask := func(st int32) int {
		i := int(st) % par
		if i < 0 {
			i += par
		}
		return i
	}
	// names are the states, elems[i][k] the elements of state k on subtask i.
	names := []string{sourcestate.ReaderStateName}
	elems := make([][][][]byte, par)
	for i := range elems {
		elems[i] = make([][][]byte, 1)
	}
	if len(s.ListStates) > 0 {
		names = names[:0]
		for i := range elems {
			elems[i] = make([][][]byte, len(s.ListStates))
		}
		for k, ls := range s.ListStates {
			names = append(names, ls.Name)
			for _, e := range ls.Elements {
				i := subtask(e.Subtask)
				elems[i][k] = append(elems[i][k], e.Data)
			}
		}
	} else {
		for _, sp := range s.Splits {
			i := subtask(sp.Subtask)
			elems[i][0] = append(elems[i][0], readerElement(sp))
		}
	}
	var files []StateFile
	for i := 0; i < par; i++ {
		stream, offsets := stateStream(elems[i], s.Compressed)
		h := &metadata.OperatorHandle{Type: metadata.TypeOperatorStream}
		for k, name := range names {
			h.States = append(h.States, metadata.OperatorStateInfo{Name: name, Mode: metadata.ModeSplit, Offsets: offsets[k]})
		}
		if s.InFile {
			name := fmt.Sprintf("%s-%d-reader-state", op.ID[:8], i)
			files = append(files, StateFile{Name: name, Data: stream})
			if file != nil {
				h.Stream = file(name, int64(len(stream)))
			} else {
				h.Stream = &metadata.StreamHandle{Type: metadata.TypeRelativeFile, Path: name, Size: int64(len(stream))}
			}
		} else {
			h.Stream = &metadata.StreamHandle{Type: metadata.TypeByteStream, Name: fmt.Sprintf("%s-%d", op.ID, i), Data: stream}
		}
		op.SubtaskStates = append(op.SubtaskStates, metadata.SubtaskState{Index: int32(i), ManagedOperator: h})
	}
	return op, files
}

// ReaderStateStream returns one subtask's operator state stream holding
// splits as the "SourceReaderState" list, and the offset of every
// element (what the operator state handle records). The stream starts with
// the OperatorBackendSerializationProxy header of version 6 (version,
// compression flag) followed by empty state meta info lists — readers seek
// to the offsets and need no more — then the elements: int32 L, int32
// version, int32 N, N bytes. Compressed streams hold the Snappy stream
// identifier after the header and one flush (one or more chunks of at most
// 64 KiB) per element, as xerial's SnappyFramedOutputStream writes them for
// Flink.
func ReaderStateStream(splits []sourcestate.RawSplit, compressed bool) ([]byte, []int64) {
	elems := make([][]byte, 0, len(splits))
	for _, s := range splits {
		elems = append(elems, readerElement(s))
	}
	b, offsets := stateStream([][][]byte{elems}, compressed)
	return b, offsets[0]
}

// readerElement frames a split as a "SourceReaderState" element.
func readerElement(s sourcestate.RawSplit) []byte {
	elem := binary.BigEndian.AppendUint32(nil, uint32(len(s.Data)+8))
	elem = binary.BigEndian.AppendUint32(elem, uint32(s.Version))
	elem = binary.BigEndian.AppendUint32(elem, uint32(len(s.Data)))
	return append(elem, s.Data...)
}

// stateStream returns an operator state stream holding states[k]'s
// elements one after the other, state after state, and the offsets of
// each state's elements: the header of ReaderStateStream, then each
// element as it is (one flush per element when compressed).
func stateStream(states [][][]byte, compressed bool) ([]byte, [][]int64) {
	b := binary.BigEndian.AppendUint32(nil, 6)
	if compressed {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	b = binary.BigEndian.AppendUint32(b, 0) // operator state meta infos
	b = binary.BigEndian.AppendUint32(b, 0) // broadcast state meta infos
	if compressed {
		b = append(b, 0xff, 6, 0, 0, 's', 'N', 'a', 'P', 'p', 'Y')
	}
	out := make([][]int64, len(states))
	for k, elems := range states {
		out[k] = make([]int64, 0, len(elems))
		for _, elem := range elems {
			out[k] = append(out[k], int64(len(b)))
			if !compressed {
				b = append(b, elem...)
				continue
			}
			for len(elem) > 0 {
				n := min(len(elem), 64<<10)
				b = appendSnappyChunk(b, elem[:n])
				elem = elem[n:]
			}
		}
	}
	return b, out
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// appendSnappyChunk appends one framed chunk: compressed when that saves
// more than 15 % (xerial's minimum compression ratio 0.85 in Flink), raw
// otherwise, with the masked CRC-32C of the uncompressed data.
func appendSnappyChunk(b, data []byte) []byte {
	c := crc32.Checksum(data, castagnoli)
	masked := (c>>15 | c<<17) + 0xa282ead8
	typ, body := byte(1), data
	if enc := snappy.Encode(nil, data); float64(len(enc)) < 0.85*float64(len(data)) {
		typ, body = 0, enc
	}
	n := len(body) + 4
	b = append(b, typ, byte(n), byte(n>>8), byte(n>>16))
	b = binary.LittleEndian.AppendUint32(b, masked)
	return append(b, body...)
}

// EncodeCoordinator returns a coordinator state in SourceCoordinator's
// framing: int32 serde version, int32 enumerator serializer version, int32
// N, N bytes.
func EncodeCoordinator(c sourcestate.Coordinator) []byte {
	e := &encoder{}
	e.i32(c.SerdeVersion)
	e.i32(c.Version)
	e.bytes(c.Data)
	return e.b
}

// KafkaSplit returns a KafkaSource split as KafkaPartitionSplitSerializer
// (version 0) writes it, for the reader state of subtask s.Subtask.
func KafkaSplit(s sourcestate.KafkaSplit) sourcestate.RawSplit {
	e := &encoder{}
	kafkaSplitBytes(e, s)
	return sourcestate.RawSplit{Subtask: s.Subtask, Version: sourcestate.KafkaSplitVersion, Data: e.b}
}

func kafkaSplitBytes(e *encoder, s sourcestate.KafkaSplit) {
	e.utf(s.Topic)
	e.i32(s.Partition)
	e.i64(s.StartingOffset)
	e.i64(s.StoppingOffset)
}

// KafkaEnumerator returns a KafkaSource enumerator state of e.Version (0 to
// 3) in SourceCoordinator framing. Version 0 groups the splits by
// Subtask; versions 0 and 3 need each partition's Split (one with the
// earliest marker is used when nil).
func KafkaEnumerator(k sourcestate.KafkaEnumerator) (*sourcestate.Coordinator, error) {
	e := &encoder{}
	split := func(p sourcestate.KafkaPartition) []byte {
		s := sourcestate.KafkaSplit{Topic: p.Topic, Partition: p.Partition, StartingOffset: sourcestate.OffsetEarliest, StoppingOffset: sourcestate.OffsetNone}
		if p.Split != nil {
			s = *p.Split
		}
		se := &encoder{}
		kafkaSplitBytes(se, s)
		return se.b
	}
	switch k.Version {
	case 0:
		var subtasks []int32
		by := map[int32][]sourcestate.KafkaPartition{}
		for _, p := range k.Partitions {
			if _, ok := by[p.Subtask]; !ok {
				subtasks = append(subtasks, p.Subtask)
			}
			by[p.Subtask] = append(by[p.Subtask], p)
		}
		e.i32(int32(len(subtasks)))
		e.i32(sourcestate.KafkaSplitVersion)
		for _, st := range subtasks {
			e.i32(st)
			e.i32(int32(len(by[st])))
			for _, p := range by[st] {
				e.bytes(split(p))
			}
		}
	case 1, 2:
		e.i32(int32(len(k.Partitions)))
		for _, p := range k.Partitions {
			e.utf(p.Topic)
			e.i32(p.Partition)
			if k.Version == 2 {
				e.i32(int32(p.Status))
			}
		}
		if k.Version == 2 {
			e.boolean(k.InitialDiscoveryFinished)
		}
	case 3:
		e.i32(int32(len(k.Partitions)))
		e.i32(sourcestate.KafkaSplitVersion)
		for _, p := range k.Partitions {
			e.bytes(split(p))
			e.i32(int32(p.Status))
		}
		e.boolean(k.InitialDiscoveryFinished)
	default:
		return nil, fmt.Errorf("flinkckpttest: KafkaSource enumerator version %d does not exist (0 to 3)", k.Version)
	}
	if e.err != nil {
		return nil, e.err
	}
	return &sourcestate.Coordinator{SerdeVersion: 1, Version: k.Version, Data: e.b}, nil
}

// KafkaSource returns a KafkaSource of parallelism 1 reading topic, whose
// reader state holds partition i at offsets[i] (a marker when negative),
// with an enumerator state of version 3 naming every partition assigned.
func KafkaSource(uid, topic string, offsets ...int64) Source {
	s := Source{UID: uid}
	var parts []sourcestate.KafkaPartition
	for i, o := range offsets {
		sp := sourcestate.KafkaSplit{Topic: topic, Partition: int32(i), StartingOffset: o, StoppingOffset: sourcestate.OffsetNone}
		s.Splits = append(s.Splits, KafkaSplit(sp))
		initial := sp
		initial.Subtask, initial.StartingOffset = -1, sourcestate.OffsetEarliest
		parts = append(parts, sourcestate.KafkaPartition{Topic: topic, Partition: int32(i), Status: sourcestate.StatusAssigned, Subtask: -1, Split: &initial})
	}
	s.Coordinator, _ = KafkaEnumerator(sourcestate.KafkaEnumerator{Version: 3, Partitions: parts, InitialDiscoveryFinished: true})
	return s
}

func (e *encoder) boolean(v bool) {
	if v {
		e.u8(1)
	} else {
		e.u8(0)
	}
}
