package kafkaoffset

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/resumekit/resumekit/internal/specificoffsets"
	"github.com/resumekit/resumekit/resume"
)

// KindOffsets is the Kind of a [Position].
const KindOffsets = "kafka-offsets"

// StartupMode is a scan.startup.mode value a [Position] launches with
// (Flink Kafka connector option names): one of the Mode* constants, a
// closed set. Its JSON is the string.
type StartupMode string

// The scan.startup.mode values a [Position] launches with.
const (
	ModeSpecificOffsets StartupMode = "specific-offsets"
	ModeTimestamp       StartupMode = "timestamp"
)

// Position is where a job reading Kafka starts: one offset per partition of
// every topic, with the evidence for each. Its JSON is part of the
// resumekit.decision/v1 document.
type Position struct {
	// Topics are the topics, in the order the resolver was given them.
	Topics []string `json:"topics"`
	// Group is the consumer group whose commits were read; "" when none.
	Group string `json:"group,omitempty"`
	// TimestampMillis is the start time looked up (unix milliseconds); 0
	// when the position comes from commits only.
	TimestampMillis int64 `json:"timestamp_millis,omitempty"`
	// IsolationLevel is the isolation level the offsets assume
	// (read_committed: no start is above a partition's last stable
	// offset); "" in documents written before it was recorded.
	IsolationLevel IsolationLevel `json:"isolation_level,omitempty"`
	// Mode is the scan.startup.mode the launch uses: timestamp when no
	// group was read and Flink's timestamp initializer, which looks the time
	// up again when the job starts, lands every partition on its chosen
	// offset; specific-offsets otherwise (with a group, and whenever a start
	// was lowered to the last stable offset or the time is after now). With
	// several topics and specific offsets no SQL option can express the
	// start: use the partitions with DataStream OffsetsInitializer.offsets.
	Mode StartupMode `json:"mode"`
	// Partitions has one entry per partition, ordered by topic (in Topics
	// order) and partition.
	Partitions []Partition `json:"partitions"`
}

// Partition is the start of one partition and why.
type Partition struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	// Start is the log start offset, End the end offset (high watermark),
	// both as listed when the position was resolved.
	Start int64 `json:"start"`
	End   int64 `json:"end"`
	// LastStable is the last stable offset, the end a read_committed
	// reader reaches (below End while a transaction is open); nil when not
	// listed (read_uncommitted).
	LastStable *int64 `json:"last_stable,omitempty"`
	// Committed is the group's committed offset; nil when the partition has
	// no commit (or no group was asked).
	Committed *int64 `json:"committed"`
	// ByTime is the first offset at or after the start time; nil when it
	// was not looked up or no record is at or after the time.
	ByTime *int64 `json:"by_time,omitempty"`
	// Offset is the chosen start offset.
	Offset int64 `json:"offset"`
	// From says how Offset was found: FromCommit, FromTime, FromEnd or
	// FromLogStart (see [PartitionOffsets.From]). Omitted from the JSON only
	// in positions recorded before it existed.
	From OffsetSource `json:"from,omitempty"`
	// Reason says why Offset was chosen, in one line.
	Reason string `json:"reason"`
}

var _ resume.Position = Position{}

// Kind returns "kafka-offsets".
func (p Position) Kind() string { return KindOffsets }

// String describes the position in one line, e.g.
// "orders: partition:0,offset:42;partition:1,offset:300 (group job-1)".
func (p Position) String() string {
	var b strings.Builder
	for i, t := range p.Topics {
		if i > 0 {
			b.WriteString(" + ")
		}
		b.WriteString(t)
		b.WriteString(": ")
		b.WriteString(FormatSpecificOffsets(p.topicPartitions(t)))
	}
	switch {
	case p.Group != "" && p.TimestampMillis != 0:
		fmt.Fprintf(&b, " (group %s, else by time %s)", p.Group, fmtMillis(p.TimestampMillis))
	case p.Group != "":
		fmt.Fprintf(&b, " (group %s)", p.Group)
	case p.TimestampMillis != 0:
		fmt.Fprintf(&b, " (by time %s)", fmtMillis(p.TimestampMillis))
	}
	return b.String()
}

func (p Position) topicPartitions(topic string) []Partition {
	var out []Partition
	for _, pp := range p.Partitions {
		if pp.Topic == topic {
			out = append(out, pp)
		}
	}
	return out
}

// Launch returns the Flink Kafka connector options: for one topic
// scan.startup.mode=specific-offsets with scan.startup.specific-offsets, or
// scan.startup.mode=timestamp with scan.startup.timestamp-millis when Mode is
// timestamp. With several topics and specific offsets it returns no options:
// the SQL option covers a single topic, and the partitions in the position's
// JSON are for DataStream OffsetsInitializer.offsets.
func (p Position) Launch() resume.Launch {
	switch {
	case p.Mode == ModeTimestamp:
		return resume.Launch{Options: map[string]string{
			"scan.startup.mode":             string(ModeTimestamp),
			"scan.startup.timestamp-millis": strconv.FormatInt(p.TimestampMillis, 10),
		}}
	case len(p.Topics) == 1:
		return resume.Launch{Options: map[string]string{
			"scan.startup.mode":             string(ModeSpecificOffsets),
			"scan.startup.specific-offsets": FormatSpecificOffsets(p.Partitions),
		}}
	}
	return resume.Launch{}
}

// MarshalJSON encodes the position with its arrays never null.
func (p Position) MarshalJSON() ([]byte, error) {
	type plain Position
	if p.Topics == nil {
		p.Topics = []string{}
	}
	if p.Partitions == nil {
		p.Partitions = []Partition{}
	}
	return json.Marshal(plain(p))
}

// PositionOf returns the position in p: a Position, a copy of a *Position,
// or a [*resume.RawPosition] of kind "kafka-offsets" read back from a decision
// document, decoded. Any other position is an error.
func PositionOf(p resume.Position) (*Position, error) {
	out, err := resume.PositionAs[Position](p, KindOffsets)
	if err != nil {
		return nil, fmt.Errorf("kafkaoffset: %w", err)
	}
	if _, raw := p.(*resume.RawPosition); raw && out.Partitions == nil {
		return nil, errors.New("kafkaoffset: decode position: no partitions field")
	}
	return out, nil
}

// FormatSpecificOffsets renders partitions' chosen offsets in the format of
// the Flink Kafka connector's scan.startup.specific-offsets option:
// "partition:0,offset:42;partition:1,offset:300". It ignores the topic: the
// option covers one topic.
func FormatSpecificOffsets(ps []Partition) string {
	return specificoffsets.Format(ps, func(p Partition) (int32, int64) { return p.Partition, p.Offset })
}

// ParseSpecificOffsets reads a scan.startup.specific-offsets value
// ("partition:0,offset:42;partition:1,offset:300") into partition → offset.
// Like Flink, it accepts an optional trailing ';' and refuses anything else
// that does not match: negative or duplicate partitions, negative offsets,
// and numbers out of range.
func ParseSpecificOffsets(s string) (map[int32]int64, error) {
	m, err := specificoffsets.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("kafkaoffset: %w", err)
	}
	return m, nil
}

// sortPartitions orders ps by topic (in the order of topics) and partition.
func sortPartitions(ps []Partition, topics []string) {
	rank := make(map[string]int, len(topics))
	for i, t := range topics {
		rank[t] = i
	}
	slices.SortFunc(ps, func(a, b Partition) int {
		if a.Topic != b.Topic {
			return rank[a.Topic] - rank[b.Topic]
		}
		return int(a.Partition) - int(b.Partition)
	})
}

// SourceTable returns the topics the position starts, comma-separated: what
// the launch's SQL options start.
func (p Position) SourceTable() string { return strings.Join(p.Topics, ",") }

// Facts returns the loss of a start below the log start, one fact per
// partition whose committed offset retention deleted: "orders/1: 2 records
// (offsets 52..53)", and per partition without a commit whose log start is
// above 0: "orders/2: no commit, up to 100 offsets (0..99) deleted,
// possibly never read".
func (p Position) Facts() []resume.Fact {
	var out []resume.Fact
	for _, pp := range p.Partitions {
		if pp.Committed != nil && *pp.Committed < pp.Start && pp.Offset >= pp.Start {
			out = append(out, resume.Fact{Label: resume.FactLoss, Text: lossText(pp.Topic, pp.Partition, *pp.Committed, pp.Start)})
		}
		if pp.Committed == nil && pp.From == FromLogStart && pp.Start > 0 {
			out = append(out, resume.Fact{Label: resume.FactLoss, Text: fmt.Sprintf("%s/%d: no commit, up to %s deleted, possibly never read", pp.Topic, pp.Partition, offsetsText(pp.Start))})
		}
	}
	return out
}

// offsetsText names the offsets 0..start-1 of a partition: offsets, not
// records, since control records of transactions take offsets too.
func offsetsText(start int64) string {
	if start == 1 {
		return "1 offset (0)"
	}
	return fmt.Sprintf("%d offsets (0..%d)", start, start-1)
}

// lossText says which records a partition never reads: from (the offset the
// old job would have read next) up to, not including, to.
func lossText(topic string, partition int32, from, to int64) string {
	n := to - from
	if n == 1 {
		return fmt.Sprintf("%s/%d: 1 record (offset %d)", topic, partition, from)
	}
	return fmt.Sprintf("%s/%d: %d records (offsets %d..%d)", topic, partition, n, from, to-1)
}

var _ resume.InputStarter = Position{}

// InputStarts returns where the position starts each partition (the
// commit when it starts from one, the chosen offset otherwise) and the log
// start listed with it: every record below it is gone.
func (p Position) InputStarts() []resume.InputStart {
	out := make([]resume.InputStart, 0, len(p.Partitions))
	for _, pp := range p.Partitions {
		o := pp.Offset
		if pp.From == FromCommit && pp.Committed != nil {
			o = *pp.Committed
		}
		out = append(out, resume.InputStart{Input: resume.KafkaInput(pp.Topic, pp.Partition), Offset: o, GoneBelow: pp.Start})
	}
	return out
}
