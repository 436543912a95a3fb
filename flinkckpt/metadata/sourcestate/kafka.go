package sourcestate

import (
	"fmt"
	"math"
)

// Marker is what a KafkaSource split's offset means when it is not an
// offset: the reader had not resolved where to start yet.
type Marker string

// KafkaPartitionSplit's offset markers.
const (
	MarkerNone      Marker = ""          // an offset (next to read)
	MarkerEarliest  Marker = "earliest"  // -2 EARLIEST_OFFSET: the log start
	MarkerLatest    Marker = "latest"    // -1 LATEST_OFFSET: the end offset
	MarkerCommitted Marker = "committed" // -3 COMMITTED_OFFSET: the group's commit
)

// KafkaSource offset values (KafkaPartitionSplit).
const (
	OffsetLatest    int64 = -1
	OffsetEarliest  int64 = -2
	OffsetCommitted int64 = -3
	// OffsetNone is the stopping offset of an unbounded split (and the
	// enumerator's MIGRATED placeholder as a starting offset).
	OffsetNone int64 = math.MinInt64
)

// MarkerOf names the marker an offset stands for (MarkerNone for an
// offset ≥ 0 and for values that are no marker).
func MarkerOf(offset int64) Marker {
	switch offset {
	case OffsetLatest:
		return MarkerLatest
	case OffsetEarliest:
		return MarkerEarliest
	case OffsetCommitted:
		return MarkerCommitted
	}
	return MarkerNone
}

// KafkaSplit is a KafkaSource split (KafkaPartitionSplitSerializer, version
// 0, the only one: UTF topic, int32 partition, int64 starting offset, int64
// stopping offset).
type KafkaSplit struct {
	// Subtask holding the split in reader state; -1 in enumerator state.
	Subtask   int32
	Topic     string
	Partition int32
	// StartingOffset is, in reader state, the next offset to read, or a
	// marker (-2 earliest, -1 latest, -3 committed) when the reader had
	// not started the partition yet. In enumerator state (v0, v3) it is
	// the offset the split was created with, not progress.
	StartingOffset int64
	// StoppingOffset is OffsetNone for unbounded splits, -1 latest, -3
	// committed, or an offset ≥ 0 for bounded jobs.
	StoppingOffset int64
}

// Marker returns the starting offset's marker.
func (s KafkaSplit) Marker() Marker { return MarkerOf(s.StartingOffset) }

// KafkaSplitVersion is the KafkaPartitionSplitSerializer version.
const KafkaSplitVersion = 0

// parseKafkaSplit decodes a KafkaSource split of serializer version 0.
func parseKafkaSplit(version int32, data []byte) (KafkaSplit, error) {
	c := newVersionedCursor("KafkaSource split", version, data)
	if version != KafkaSplitVersion {
		c.Fail("unknown KafkaPartitionSplitSerializer version %d (only 0 exists)", version)
		return KafkaSplit{}, c.Err
	}
	s := kafkaSplit(c)
	c.End()
	return s, c.Err
}

func kafkaSplit(c *cursor) KafkaSplit {
	s := KafkaSplit{Subtask: -1}
	start := c.Off
	s.Topic = c.UTF("topic")
	if c.Err == nil && !validTopic(s.Topic) {
		c.Off = start
		c.Fail("topic %q is not a Kafka topic name", s.Topic)
	}
	s.Partition = c.I32("partition")
	if c.Err == nil && s.Partition < 0 {
		c.Off -= 4
		c.Fail("negative partition %d", s.Partition)
	}
	s.StartingOffset = c.I64("starting offset")
	if c.Err == nil && (s.StartingOffset < OffsetCommitted && s.StartingOffset != OffsetNone || s.StartingOffset > maxID) {
		c.Off -= 8
		c.Fail("starting offset %d is neither an offset (up to 2^62) nor a marker", s.StartingOffset)
	}
	s.StoppingOffset = c.I64("stopping offset")
	if c.Err == nil && (s.StoppingOffset < OffsetCommitted && s.StoppingOffset != OffsetNone || s.StoppingOffset > maxID) {
		c.Off -= 8
		c.Fail("stopping offset %d is neither an offset (up to 2^62) nor a marker", s.StoppingOffset)
	}
	return s
}

// validTopic applies Kafka's topic name rules: 1 to 249 characters of
// [a-zA-Z0-9._-].
func validTopic(t string) bool {
	if t == "" || t == "." || t == ".." || len(t) > 249 {
		return false
	}
	for _, r := range t {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// AssignmentStatus is a partition's status in KafkaSource enumerator state
// v2 and v3 (AssignmentStatus).
type AssignmentStatus int32

// Assignment statuses.
const (
	StatusUnknown    AssignmentStatus = -1 // not recorded (v0, v1)
	StatusAssigned   AssignmentStatus = 0
	StatusUnassigned AssignmentStatus = 1
)

// String names the status.
func (s AssignmentStatus) String() string {
	switch s {
	case StatusUnknown:
		return "unknown"
	case StatusAssigned:
		return "assigned"
	case StatusUnassigned:
		return "unassigned"
	}
	return fmt.Sprintf("AssignmentStatus(%d)", int32(s))
}

// KafkaPartition is one partition the KafkaSource enumerator knows.
type KafkaPartition struct {
	Topic     string
	Partition int32
	Status    AssignmentStatus
	// Subtask the split was assigned to (v0), else -1.
	Subtask int32
	// Split is the split as the enumerator created it (v0, v3): its
	// starting offset is the initial one, not progress.
	Split *KafkaSplit
}

// KafkaEnumerator is a KafkaSource enumerator checkpoint
// (KafkaSourceEnumStateSerializer versions 0 to 3).
type KafkaEnumerator struct {
	Version int32
	// SplitVersion is the split serializer version recorded (v0, v3).
	SplitVersion int32
	Partitions   []KafkaPartition
	// InitialDiscoveryFinished (v2, v3).
	InitialDiscoveryFinished bool
}

// parseKafkaEnumerator decodes a KafkaSource enumerator checkpoint of
// serializer version 0 (split assignments per subtask, Flink 1.12), 1
// (assigned partitions), 2 (partitions with status and the initial
// discovery flag) or 3 (splits with status). No trailing bytes are
// allowed.
func parseKafkaEnumerator(version int32, data []byte) (*KafkaEnumerator, error) {
	c := newVersionedCursor("KafkaSource enumerator state", version, data)
	e := &KafkaEnumerator{Version: version, SplitVersion: -1}
	switch version {
	case 0:
		subtasks := c.Count("subtask count", 8)
		e.SplitVersion = c.I32("split serializer version")
		if c.Err == nil && e.SplitVersion != KafkaSplitVersion {
			c.Off -= 4
			c.Fail("split serializer version %d", e.SplitVersion)
		}
		for i := 0; i < subtasks && c.Err == nil; i++ {
			sub := c.I32("subtask id")
			n := c.Count("split count", 26)
			for j := 0; j < n && c.Err == nil; j++ {
				sp, ok := c.nestedKafkaSplit()
				if !ok {
					break
				}
				e.Partitions = append(e.Partitions, KafkaPartition{Topic: sp.Topic, Partition: sp.Partition, Status: StatusAssigned, Subtask: sub, Split: &sp})
			}
		}
	case 1, 2:
		n := c.Count("partition count", 6)
		e.Partitions = make([]KafkaPartition, 0, n)
		for i := 0; i < n && c.Err == nil; i++ {
			p := KafkaPartition{Status: StatusUnknown, Subtask: -1}
			start := c.Off
			p.Topic = c.UTF("topic")
			if c.Err == nil && !validTopic(p.Topic) {
				c.Off = start
				c.Fail("topic %q is not a Kafka topic name", p.Topic)
			}
			p.Partition = c.I32("partition")
			if c.Err == nil && p.Partition < 0 {
				c.Off -= 4
				c.Fail("negative partition %d", p.Partition)
			}
			if version == 2 {
				p.Status = c.status()
			} else {
				p.Status = StatusAssigned
			}
			e.Partitions = append(e.Partitions, p)
		}
		if version == 2 {
			e.InitialDiscoveryFinished = c.Boolean("initial discovery finished")
		}
	case 3:
		n := c.Count("split count", 30)
		e.SplitVersion = c.I32("split serializer version")
		if c.Err == nil && e.SplitVersion != KafkaSplitVersion {
			c.Off -= 4
			c.Fail("split serializer version %d", e.SplitVersion)
		}
		e.Partitions = make([]KafkaPartition, 0, n)
		for i := 0; i < n && c.Err == nil; i++ {
			sp, ok := c.nestedKafkaSplit()
			if !ok {
				break
			}
			st := c.status()
			e.Partitions = append(e.Partitions, KafkaPartition{Topic: sp.Topic, Partition: sp.Partition, Status: st, Subtask: -1, Split: &sp})
		}
		e.InitialDiscoveryFinished = c.Boolean("initial discovery finished")
	default:
		c.Fail("unknown KafkaSourceEnumStateSerializer version %d (known: 0 to 3)", version)
	}
	c.End()
	if c.Err != nil {
		return nil, c.Err
	}
	return e, nil
}

func (c *cursor) status() AssignmentStatus {
	s := AssignmentStatus(c.I32("assignment status"))
	if c.Err == nil && s != StatusAssigned && s != StatusUnassigned {
		c.Off -= 4
		c.Fail("assignment status %d, want 0 or 1", s)
	}
	return s
}

// nestedKafkaSplit reads int32 length + a KafkaSource split of serializer
// version 0 (the enumerator's own copy, v0 and v3); a malformed one stops
// c with the split's error.
func (c *cursor) nestedKafkaSplit() (KafkaSplit, bool) {
	b := c.Bytes("split")
	if c.Err != nil {
		return KafkaSplit{}, false
	}
	sc := newCursor("KafkaSource enumerator split", b)
	sp := kafkaSplit(sc)
	sc.End()
	if sc.Err != nil {
		c.Err = sc.Err
		return sp, false
	}
	return sp, true
}
