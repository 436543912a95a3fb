package sourcestate

import (
	"fmt"
	"strconv"
	"strings"
)

// Java class names of Paimon's splits.
const (
	ClassDataSplit        = "org.apache.paimon.table.source.DataSplit"
	ClassIncrementalSplit = "org.apache.paimon.table.source.IncrementalSplit"
	ClassChainSplit       = "org.apache.paimon.table.source.ChainSplit"
)

// dataSplitMagic starts a DataSplit of version 2 or later (Paimon 0.9+);
// version 1 starts with the snapshot id.
const dataSplitMagic int64 = -2394839472490812314

// Newest split formats known; newer ones are reported, not guessed at.
const (
	maxDataSplitVersion        = 9
	maxIncrementalSplitVersion = 2
)

// PaimonSplitVersion is the version of Paimon's FileStoreSourceSplitSerializer
// and PendingSplitsCheckpointSerializer (unchanged from Paimon 0.8 to 1.4).
const PaimonSplitVersion = 1

// PaimonSplit is a split of Paimon's FLIP-27 source
// (FileStoreSourceSplitSerializer: UTF split id, the Java-serialized Split,
// int64 records to skip).
type PaimonSplit struct {
	// Subtask holding the split in reader state; -1 in enumerator state.
	Subtask int32
	ID      string
	// Class is the Java class of the split.
	Class string
	// FormatVersion is the DataSplit or IncrementalSplit serialization
	// version (1 for a DataSplit of Paimon 0.8, which has no magic).
	FormatVersion int32
	// Snapshot is the snapshot id the split reads; -1 when the split names
	// none (ChainSplit).
	Snapshot int64
	// Bucket is the bucket; -1 when not recorded (ChainSplit).
	Bucket int32
	// BucketPath is the bucket's directory (DataSplit): the table's path,
	// the partition dirs and bucket-<n>.
	BucketPath string
	// Streaming reports a split of an incremental (streaming) plan; false
	// for the initial full scan. StreamingKnown says whether the split
	// records it (DataSplit and IncrementalSplit do).
	Streaming      bool
	StreamingKnown bool
	// RecordsToSkip counts the split's records already emitted.
	RecordsToSkip int64
}

// Table returns the table directory named by the bucket path (the path
// without its partition dirs key=value and bucket-<n>), or "" when the
// bucket path does not have that shape.
func (s PaimonSplit) Table() string {
	p := strings.TrimSuffix(s.BucketPath, "/")
	i := strings.LastIndexByte(p, '/')
	if i < 0 || !strings.HasPrefix(p[i+1:], "bucket-") {
		return ""
	}
	p = p[:i]
	for {
		j := strings.LastIndexByte(p, '/')
		if j < 0 || !strings.Contains(p[j+1:], "=") {
			break
		}
		p = p[:j]
	}
	if !strings.Contains(p, "/") {
		return ""
	}
	return p
}

// parsePaimonSplit decodes a split of Paimon's FLIP-27 source.
func parsePaimonSplit(version int32, data []byte) (PaimonSplit, error) {
	c := newVersionedCursor("Paimon split", version, data)
	if version != PaimonSplitVersion {
		c.Fail("unknown FileStoreSourceSplitSerializer version %d (known: 1)", version)
		return PaimonSplit{}, c.Err
	}
	s := paimonSplit(c)
	c.End()
	return s, c.Err
}

func paimonSplit(c *cursor) PaimonSplit {
	s := PaimonSplit{Subtask: -1, Snapshot: -1, Bucket: -1}
	s.ID = c.UTF("split id")
	start := c.Off
	class, block := javaObject(c)
	s.Class = class
	s.RecordsToSkip = c.I64("records to skip")
	if c.Err == nil && s.RecordsToSkip < 0 {
		c.Off -= 8
		c.Fail("negative records to skip %d", s.RecordsToSkip)
	}
	if c.Err != nil {
		return s
	}
	bc := newCursor("Paimon "+shortClass(class), block)
	splitBody(bc, &s)
	if bc.Err != nil {
		if fe, ok := bc.Err.(*FormatError); ok {
			fe.Msg += fmt.Sprintf(" (in the block data of the Java object at byte %d of the split)", start)
		}
		c.Err = bc.Err
	}
	return s
}

func shortClass(class string) string {
	if i := strings.LastIndexByte(class, '.'); i >= 0 {
		return class[i+1:]
	}
	return class
}

// parsePaimonJavaSplit decodes a Java-serialized Paimon Split object alone
// (what InstantiationUtil.serializeObject writes, e.g. Paimon's own
// datasplit-v<n> compatibility files).
func parsePaimonJavaSplit(data []byte) (PaimonSplit, error) {
	c := newCursor("Java-serialized Paimon split", data)
	s := PaimonSplit{Subtask: -1, Snapshot: -1, Bucket: -1}
	class, block := javaObject(c)
	s.Class = class
	c.End()
	if c.Err != nil {
		return s, c.Err
	}
	bc := newCursor("Paimon "+shortClass(class), block)
	splitBody(bc, &s)
	return s, bc.Err
}

// splitBody reads the head of a split's own encoding: enough for the
// snapshot id, bucket and bucket path, and the trailing streaming flag.
func splitBody(c *cursor, s *PaimonSplit) {
	switch s.Class {
	case ClassDataSplit:
		first := c.I64("magic or snapshot id")
		if first == dataSplitMagic {
			s.FormatVersion = c.I32("DataSplit version")
			if c.Err == nil && (s.FormatVersion < 2 || s.FormatVersion > maxDataSplitVersion) {
				c.Off -= 4
				c.Fail("DataSplit version %d, known 2 to %d", s.FormatVersion, maxDataSplitVersion)
				return
			}
			s.Snapshot = c.I64("snapshot id")
		} else {
			s.FormatVersion, s.Snapshot = 1, first
		}
		binaryRow(c)
		s.Bucket = c.I32("bucket")
		s.BucketPath = c.UTF("bucket path")
		// isStreaming and rawConvertible are the last two booleans of
		// every DataSplit version.
		s.Streaming, s.StreamingKnown = trailingFlag(c, 2)
	case ClassIncrementalSplit:
		s.FormatVersion = c.I32("IncrementalSplit version")
		if c.Err == nil && (s.FormatVersion < 1 || s.FormatVersion > maxIncrementalSplitVersion) {
			c.Off -= 4
			c.Fail("IncrementalSplit version %d, known 1 to %d", s.FormatVersion, maxIncrementalSplitVersion)
			return
		}
		s.Snapshot = c.I64("snapshot id")
		binaryRow(c)
		s.Bucket = c.I32("bucket")
		// isStreaming is IncrementalSplit's last boolean.
		s.Streaming, s.StreamingKnown = trailingFlag(c, 1)
	case ClassChainSplit:
		s.FormatVersion = c.I32("ChainSplit version")
	default:
		c.Fail("unknown Paimon split class %q", s.Class)
		return
	}
	if c.Err == nil && s.Snapshot < 0 && s.Class != ClassChainSplit {
		c.Fail("negative snapshot id %d", s.Snapshot)
	}
	if c.Err == nil && s.Snapshot > maxID {
		c.Fail("snapshot id %d is above 2^62", s.Snapshot)
	}
}

// binaryRow skips a BinaryRow (int32 4+size, int32 arity, size bytes).
func binaryRow(c *cursor) {
	n := c.Count("partition row length", 1)
	if c.Err == nil && n < 4 {
		c.Off -= 4
		c.Fail("partition row length %d, want 4 or more", n)
	}
	c.Take(n, "partition row")
}

// trailingFlag reads the boolean at position back from the end of the
// block data without moving the cursor.
func trailingFlag(c *cursor, back int) (flag, ok bool) {
	if c.Err != nil || len(c.Buf)-back < c.Off {
		return false, false
	}
	b := c.Buf[len(c.Buf)-back]
	if b > 1 {
		return false, false
	}
	return b == 1, true
}

// PaimonEnumerator is the enumerator checkpoint of Paimon's
// ContinuousFileStoreSource (PendingSplitsCheckpointSerializer version 1:
// int32 n, n × (int32 length, split), int64 next snapshot id or -1).
type PaimonEnumerator struct {
	// Splits are planned but not yet assigned to a reader.
	Splits []PaimonSplit
	// NextSnapshot is the next snapshot id to plan (the field Paimon calls
	// currentSnapshotId); -1 when none was recorded.
	NextSnapshot int64
}

// parsePaimonEnumerator decodes a PendingSplitsCheckpoint.
func parsePaimonEnumerator(version int32, data []byte) (*PaimonEnumerator, error) {
	c := newVersionedCursor("Paimon enumerator state", version, data)
	if version != PaimonSplitVersion {
		c.Fail("unknown PendingSplitsCheckpointSerializer version %d (known: 1)", version)
		return nil, c.Err
	}
	n := c.Count("split count", 4)
	e := &PaimonEnumerator{Splits: make([]PaimonSplit, 0, min(n, c.Left()/32))}
	for i := 0; i < n && c.Err == nil; i++ {
		b := c.Bytes("split")
		sc := newCursor("Paimon enumerator split", b)
		s := paimonSplit(sc)
		sc.End()
		if sc.Err != nil {
			c.Err = sc.Err
			break
		}
		e.Splits = append(e.Splits, s)
	}
	e.NextSnapshot = c.I64("next snapshot id")
	if c.Err == nil && (e.NextSnapshot < -1 || e.NextSnapshot > maxID) {
		c.Off -= 8
		c.Fail("next snapshot id %d", e.NextSnapshot)
	}
	c.End()
	if c.Err != nil {
		return nil, c.Err
	}
	return e, nil
}

// MonitorValue kinds of Paimon's MonitorSource (SplitListState identifiers).
const (
	MonitorCheckpoint   = "CS"  // the next snapshot to plan
	MonitorNextSnapshot = "NSS" // a pending consumer commit: checkpoint id → next snapshot
)

// MonitorSplit is one element of the reader state of Paimon's MonitorSource
// (SimpleSourceSplitSerializer version 0: int32 length + split id, int32
// length + value). The value is "2CS<next snapshot>" or
// "3NSS<checkpoint id>:<next snapshot>".
type MonitorSplit struct {
	Subtask int32
	ID      string
	// Kind is MonitorCheckpoint or MonitorNextSnapshot.
	Kind         string
	NextSnapshot int64
	// CheckpointID of a MonitorNextSnapshot value.
	CheckpointID int64
}

// parseMonitorSplit decodes a MonitorSource split.
func parseMonitorSplit(version int32, data []byte) (MonitorSplit, error) {
	c := newVersionedCursor("Paimon MonitorSource split", version, data)
	s := MonitorSplit{Subtask: -1}
	if version != 0 {
		c.Fail("unknown SimpleSourceSplitSerializer version %d (known: 0)", version)
		return s, c.Err
	}
	s.ID = string(c.Bytes("split id"))
	start := c.Off
	v := string(c.Bytes("value"))
	c.End()
	if c.Err != nil {
		return s, c.Err
	}
	bad := func() (MonitorSplit, error) {
		c.Off = start
		c.Fail("value %q is neither 2CS<snapshot> nor 3NSS<checkpoint>:<snapshot> (ids 0 to 2^62)", truncate(v, 64))
		return s, c.Err
	}
	switch {
	case strings.HasPrefix(v, "2"+MonitorCheckpoint):
		n, err := strconv.ParseInt(v[3:], 10, 64)
		if err != nil || n < 0 || n > maxID {
			return bad()
		}
		s.Kind, s.NextSnapshot = MonitorCheckpoint, n
	case strings.HasPrefix(v, "3"+MonitorNextSnapshot):
		cp, next, ok := strings.Cut(v[4:], ":")
		a, err1 := strconv.ParseInt(cp, 10, 64)
		b, err2 := strconv.ParseInt(next, 10, 64)
		if !ok || err1 != nil || err2 != nil || b < 0 || b > maxID || a < 0 || a > maxID {
			return bad()
		}
		s.Kind, s.CheckpointID, s.NextSnapshot = MonitorNextSnapshot, a, b
	default:
		return bad()
	}
	return s, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
