package flinkckpttest

import (
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/resumekit/resumekit/flinkckpt/metadata/sourcestate"
)

// PaimonSplit returns a split of Paimon's FLIP-27 source as
// FileStoreSourceSplitSerializer (version 1) writes it: UTF split id, the
// Split object Java-serialized, int64 records to skip. The Split is
// written in the format Paimon 1.4 writes for s.Class (DataSplit v9 when
// empty, IncrementalSplit v2, ChainSplit v3) with an empty partition and
// no data files; s.FormatVersion 1 writes a DataSplit of Paimon 0.8 (no
// magic). The Java stream names the class and its serialVersionUID but
// lists no fields: resumekit and Java's own readers need only the block
// data.
func PaimonSplit(s sourcestate.PaimonSplit) (sourcestate.RawSplit, error) {
	e := &encoder{}
	e.utf(s.ID)
	obj, err := PaimonJavaSplit(s)
	if err != nil {
		return sourcestate.RawSplit{}, err
	}
	e.b = append(e.b, obj...)
	e.i64(s.RecordsToSkip)
	if e.err != nil {
		return sourcestate.RawSplit{}, e.err
	}
	return sourcestate.RawSplit{Subtask: s.Subtask, Version: sourcestate.PaimonSplitVersion, Data: e.b}, nil
}

// PaimonJavaSplit returns the Java serialization of the Split object alone
// (see PaimonSplit).
func PaimonJavaSplit(s sourcestate.PaimonSplit) ([]byte, error) {
	class := s.Class
	if class == "" {
		class = sourcestate.ClassDataSplit
	}
	bucketPath := s.BucketPath
	body := &encoder{}
	emptyRow := func() {
		body.i32(12) // 4 + size of an empty BinaryRow
		body.i32(0)  // arity
		body.i64(0)  // null bits
	}
	var suid int64
	switch class {
	case sourcestate.ClassDataSplit:
		suid = 7
		if s.FormatVersion == 1 {
			body.i64(s.Snapshot)
		} else {
			body.i64(-2394839472490812314)
			body.i32(9)
			body.i64(s.Snapshot)
		}
		emptyRow()
		body.i32(s.Bucket)
		body.utf(bucketPath)
		if s.FormatVersion != 1 {
			body.boolean(false) // totalBuckets: null
		}
		body.i32(0) // before files
		body.u8(0)  // before deletion files: null
		body.i32(0) // data files
		body.u8(0)  // data deletion files: null
		body.boolean(s.Streaming)
		body.boolean(false) // rawConvertible
	case sourcestate.ClassIncrementalSplit:
		suid = 1
		body.i32(2)
		body.i64(s.Snapshot)
		emptyRow()
		body.i32(s.Bucket)
		body.i32(1) // total buckets
		body.i32(0) // before files
		body.u8(0)  // before deletion files: null
		body.i32(0) // after files
		body.u8(0)  // after deletion files: null
		body.boolean(s.Streaming)
	case sourcestate.ClassChainSplit:
		suid = 1
		body.i32(3)
		emptyRow()
		body.i32(0) // data files
		body.i32(0) // file → bucket path
		body.i32(0) // file → branch
		body.u8(0)  // deletion files: null
	default:
		return nil, fmt.Errorf("flinkckpttest: cannot write Paimon split class %q", class)
	}
	if body.err != nil {
		return nil, body.err
	}
	j := &javaStream{}
	j.b = append(j.b, 0xAC, 0xED, 0x00, 0x05, 0x73, 0x72)
	j.utf(class)
	j.b = binary.BigEndian.AppendUint64(j.b, uint64(suid))
	j.b = append(j.b, 0x03, 0, 0, 0x78, 0x70) // SC_WRITE_METHOD|SC_SERIALIZABLE, no fields, end, no superclass
	// Block data in blocks of at most 1024 bytes, as ObjectOutputStream
	// writes it: TC_BLOCKDATA up to 255 bytes, TC_BLOCKDATALONG above.
	for data := body.b; len(data) > 0; {
		n := min(len(data), 1024)
		if n <= 255 {
			j.b = append(j.b, 0x77, byte(n))
		} else {
			j.b = append(j.b, 0x7A)
			j.b = binary.BigEndian.AppendUint32(j.b, uint32(n))
		}
		j.b = append(j.b, data[:n]...)
		data = data[n:]
	}
	j.b = append(j.b, 0x78)
	return j.b, nil
}

// PaimonEnumerator returns a PendingSplitsCheckpoint (version 1) in
// SourceCoordinator framing: the pending splits and the next snapshot to
// plan (-1 for none).
func PaimonEnumerator(p sourcestate.PaimonEnumerator) (*sourcestate.Coordinator, error) {
	e := &encoder{}
	e.i32(int32(len(p.Splits)))
	for _, s := range p.Splits {
		raw, err := PaimonSplit(s)
		if err != nil {
			return nil, err
		}
		e.bytes(raw.Data)
	}
	e.i64(p.NextSnapshot)
	return &sourcestate.Coordinator{SerdeVersion: 1, Version: sourcestate.PaimonSplitVersion, Data: e.b}, nil
}

// PaimonSource returns Paimon's ContinuousFileStoreSource of parallelism 1
// whose enumerator will plan next and whose reader holds one unfinished
// streaming DataSplit of each snapshot in readerSnapshots, of the table at
// tablePath (bucket paths <tablePath>/bucket-0; "" for none).
func PaimonSource(uid, tablePath string, next int64, readerSnapshots ...int64) Source {
	s := Source{UID: uid}
	for i, id := range readerSnapshots {
		bp := ""
		if tablePath != "" {
			bp = tablePath + "/bucket-0"
		}
		raw, _ := PaimonSplit(sourcestate.PaimonSplit{ID: strconv.Itoa(i), Class: sourcestate.ClassDataSplit, Snapshot: id, BucketPath: bp, Streaming: true})
		s.Splits = append(s.Splits, raw)
	}
	s.Coordinator, _ = PaimonEnumerator(sourcestate.PaimonEnumerator{NextSnapshot: next})
	return s
}

// MonitorSplit returns an element of Paimon MonitorSource's reader state
// (SimpleSourceSplitSerializer version 0): "2CS<next>" for
// MonitorCheckpoint, "3NSS<checkpoint>:<next>" for MonitorNextSnapshot.
func MonitorSplit(m sourcestate.MonitorSplit) sourcestate.RawSplit {
	v := "2CS" + strconv.FormatInt(m.NextSnapshot, 10)
	if m.Kind == sourcestate.MonitorNextSnapshot {
		v = "3NSS" + strconv.FormatInt(m.CheckpointID, 10) + ":" + strconv.FormatInt(m.NextSnapshot, 10)
	}
	e := &encoder{}
	e.bytes([]byte(m.ID))
	e.bytes([]byte(v))
	return sourcestate.RawSplit{Subtask: m.Subtask, Version: 0, Data: e.b}
}

// MonitorSource returns Paimon's MonitorSource (consumer-id with
// consumer.mode exactly-once) whose next snapshot to plan is next: its
// enumerator state is NoOpEnumStateSerializer's (version 0, empty).
func MonitorSource(uid string, next int64) Source {
	return Source{UID: uid,
		Splits:      []sourcestate.RawSplit{MonitorSplit(sourcestate.MonitorSplit{ID: "monitor", Kind: sourcestate.MonitorCheckpoint, NextSnapshot: next})},
		Coordinator: &sourcestate.Coordinator{SerdeVersion: 1, Version: 0, Data: []byte{}}}
}

// The operator list states of Paimon's legacy MonitorFunction.
const (
	// LegacyMonitorNextSnapshot holds the next snapshot to plan
	// (LongSerializer: 8 bytes; MonitorFunction writes at most one).
	LegacyMonitorNextSnapshot = "next-snapshot"
	// LegacyMonitorPerCheckpoint holds the next snapshot of each
	// checkpoint not yet confirmed (Tuple2<Long, Long> of checkpoint id
	// and next snapshot: 16 bytes), for the consumer commits.
	LegacyMonitorPerCheckpoint = "next-snapshot-per-checkpoint"
)

// LegacyMonitorSource returns Paimon's legacy MonitorFunction (Paimon 0.9
// and older: a SourceFunction in a StreamSource operator, used with
// consumer-id and consumer.mode exactly-once) of parallelism 1, whose
// "next-snapshot" list state holds next, one 8-byte element each (the
// function writes at most one; several, or none, test the decoder's rule),
// and whose "next-snapshot-per-checkpoint" list state is empty (append
// 16-byte elements to ListStates[1] for pending commits). It has no reader
// state and no coordinator state.
func LegacyMonitorSource(uid string, next ...int64) Source {
	s := Source{UID: uid, ListStates: []ListState{{Name: LegacyMonitorNextSnapshot}, {Name: LegacyMonitorPerCheckpoint}}}
	for _, n := range next {
		s.ListStates[0].Elements = append(s.ListStates[0].Elements, ListElement{Data: binary.BigEndian.AppendUint64(nil, uint64(n))})
	}
	return s
}
