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
		c.fail("unknown KafkaPartitionSplitSerializer version %d (only 0 exists)", version)
		return KafkaSplit{}, c.err
	}
	s := kafkaSplit(c)
	c.end()
	return s, c.err
}

func kafkaSplit(c *cursor) KafkaSplit {
	s := KafkaSplit{Subtask: -1}
	start := c.off
	s.Topic = c.utf("topic")
	if c.err == nil && !validTopic(s.Topic) {
		c.off = start
		c.fail("topic %q is not a Kafka topic name", s.Topic)
	}
	s.Partition = c.i32("partition")
	if c.err == nil && s.Partition < 0 {
		c.off -= 4
		c.fail("negative partition %d", s.Partition)
	}
	s.StartingOffset = c.i64("starting offset")
	if c.err == nil && (s.StartingOffset < OffsetCommitted && s.StartingOffset != OffsetNone || s.StartingOffset > maxID) {
		c.off -= 8
		c.fail("starting offset %d is neither an offset (up to 2^62) nor a marker", s.StartingOffset)
	}
	s.StoppingOffset = c.i64("stopping offset")
	if c.err == nil && (s.StoppingOffset < OffsetCommitted && s.StoppingOffset != OffsetNone || s.StoppingOffset > maxID) {
		c.off -= 8
		c.fail("stopping offset %d is neither an offset (up to 2^62) nor a marker", s.StoppingOffset)
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
		subtasks := c.count("subtask count", 8)
		e.SplitVersion = c.i32("split serializer version")
		if c.err == nil && e.SplitVersion != KafkaSplitVersion {
			c.off -= 4
			c.fail("split serializer version %d", e.SplitVersion)
		}
		for i := 0; i < subtasks && c.err == nil; i++ {
			sub := c.i32("subtask id")
			n := c.count("split count", 26)
			for j := 0; j < n && c.err == nil; j++ {
				sp, ok := c.nestedKafkaSplit()
				if !ok {
					break
				}
				e.Partitions = append(e.Partitions, KafkaPartition{Topic: sp.Topic, Partition: sp.Partition, Status: StatusAssigned, Subtask: sub, Split: &sp})
			}
		}
	case 1, 2:
		n := c.count("partition count", 6)
		e.Partitions = make([]KafkaPartition, 0, n)
		for i := 0; i < n && c.err == nil; i++ {
			p := KafkaPartition{Status: StatusUnknown, Subtask: -1}
			start := c.off
			p.Topic = c.utf("topic")
			if c.err == nil && !validTopic(p.Topic) {
				c.off = start
				c.fail("topic %q is not a Kafka topic name", p.Topic)
			}
			p.Partition = c.i32("partition")
			if c.err == nil && p.Partition < 0 {
				c.off -= 4
				c.fail("negative partition %d", p.Partition)
			}
			if version == 2 {
				p.Status = c.status()
			} else {
				p.Status = StatusAssigned
			}
			e.Partitions = append(e.Partitions, p)
		}
		if version == 2 {
			e.InitialDiscoveryFinished = c.boolean("initial discovery finished")
		}
	case 3:
		n := c.count("split count", 30)
		e.SplitVersion = c.i32("split serializer version")
		if c.err == nil && e.SplitVersion != KafkaSplitVersion {
			c.off -= 4
			c.fail("split serializer version %d", e.SplitVersion)
		}
		e.Partitions = make([]KafkaPartition, 0, n)
		for i := 0; i < n && c.err == nil; i++ {
			sp, ok := c.nestedKafkaSplit()
			if !ok {
				break
			}
			st := c.status()
			e.Partitions = append(e.Partitions, KafkaPartition{Topic: sp.Topic, Partition: sp.Partition, Status: st, Subtask: -1, Split: &sp})
		}
		e.InitialDiscoveryFinished = c.boolean("initial discovery finished")
	default:
		c.fail("unknown KafkaSourceEnumStateSerializer version %d (known: 0 to 3)", version)
	}
	c.end()
	if c.err != nil {
		return nil, c.err
	}
	return e, nil
}

func (c *cursor) status() AssignmentStatus {
	s := AssignmentStatus(c.i32("assignment status"))
	if c.err == nil && s != StatusAssigned && s != StatusUnassigned {
		c.off -= 4
		c.fail("assignment status %d, want 0 or 1", s)
	}
	return s
}

// nestedKafkaSplit reads int32 length + a KafkaSource split of serializer
// version 0 (the enumerator's own copy, v0 and v3); a malformed one stops
// c with the split's error.
func (c *cursor) nestedKafkaSplit() (KafkaSplit, bool) {
	b := c.bytes("split")
	if c.err != nil {
		return KafkaSplit{}, false
	}
	sc := newCursor("KafkaSource enumerator split", b)
	sp := kafkaSplit(sc)
	sc.end()
	if sc.err != nil {
		c.err = sc.err
		return sp, false
	}
	return sp, true
}
