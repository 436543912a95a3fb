package kafkaoffset_test

import (
	"testing"

	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/resume/resumetest"
)

// TestPositionContract: the position keeps the rules of every resolver
// package's position (value receivers; read back from a decision document,
// PositionOf gives the same JSON, summary and launch), with one topic, by
// time, and with two topics.
func TestPositionContract(t *testing.T) {
	byTime := kafkaoffset.Position{Topics: []string{"orders"}, TimestampMillis: 1795946400000, Mode: kafkaoffset.ModeTimestamp,
		Partitions: []kafkaoffset.Partition{{Topic: "orders", Start: 0, End: 9, ByTime: i64(3), Offset: 3, From: kafkaoffset.FromTime, Reason: "by time"}}}
	two := kafkaoffset.Position{Topics: []string{"a", "b"}, Group: "g", Mode: kafkaoffset.ModeSpecificOffsets,
		Partitions: []kafkaoffset.Partition{{Topic: "a", Offset: 1, From: kafkaoffset.FromCommit, Reason: "r"}, {Topic: "b", Offset: 2, From: kafkaoffset.FromLogStart, Reason: "r"}}}
	for _, p := range []kafkaoffset.Position{*goldenPosition(), byTime, two} {
		for _, err := range resumetest.CheckPosition(p, kafkaoffset.PositionOf) {
			t.Error(err)
		}
	}
}
