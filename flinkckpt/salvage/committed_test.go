package salvage_test

import (
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sourcestate"
	"github.com/resumekit/resumekit/flinkckpt/salvage"
	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/livecheck"
)

// The committed marker (a partition the old job, started with
// OffsetsInitializer.committedOffsets(), had not read yet) starts at the
// old job's group's commit when the group is given: checked against the
// log like any offset (a commit below the log start is data loss). Without
// the group, or where the group has no commit, the partition is named and
// left to the connector (replay).
func TestKafkaCommittedMarker(t *testing.T) {
	l, dir, cl := committedMarkers(t)
	resolve := func(group string) resume.Candidate {
		t.Helper()
		return salvaged(t, l, &salvage.Options{Snapshot: dir, Live: &livecheck.Checkers{Kafka: kafkaoffset.Log{Client: cl}}, KafkaGroup: group})
	}

	c := resolve("orders-job")
	starts := kafkaStarts(t, c)
	if starts[1].Offset != 12 || !starts[1].Resolved || starts[2].Resolved || starts[2].Marker != sourcestate.MarkerCommitted {
		t.Errorf("starts %+v", starts)
	}
	if got := c.Position.Launch().Options["scan.startup.specific-offsets"]; got != "partition:0,offset:7;partition:1,offset:12" {
		t.Errorf("specific offsets %q", got)
	}
	// Partition 2 has no commit: named, replay.
	if c.Guarantee != resume.Replay || !c.HasWarning(salvage.WarnResolvedMarker) || !c.HasWarning(salvage.WarnUnresolvedMarker) ||
		!strings.Contains(warning(c, salvage.WarnUnresolvedMarker), "group orders-job has no commit") ||
		!strings.Contains(warning(c, salvage.WarnResolvedMarker), "topic/1 committed → group orders-job's commit 12") {
		t.Errorf("guarantee %s warnings %v", c.Guarantee, c.Warnings)
	}

	// Commit partition 2 too, then delete below 15 on partition 1: its
	// commit's records are gone: data loss naming it.
	commit(t, cl, "orders-job", "topic", map[int32]int64{2: 20})
	deleteRecords(t, cl, "topic", 1, 15)
	c = resolve("orders-job")
	starts = kafkaStarts(t, c)
	if c.Guarantee != resume.DataLoss || starts[1].Offset != 15 || starts[1].Lost != 3 || starts[2].Offset != 20 ||
		!strings.Contains(warning(c, salvage.WarnDataLoss), "topic/1: 3 records") {
		t.Errorf("guarantee %s starts %+v warnings %v", c.Guarantee, starts, c.Warnings)
	}

	// Without the group: both committed partitions named, replay.
	c = resolve("")
	if c.Guarantee != resume.Replay || !strings.Contains(warning(c, salvage.WarnUnresolvedMarker), "group is not known here") {
		t.Errorf("guarantee %s warnings %v", c.Guarantee, c.Warnings)
	}
	if got := c.Position.Launch().Options["scan.startup.specific-offsets"]; got != "partition:0,offset:7" {
		t.Errorf("specific offsets %q", got)
	}
}

// committedMarkers is the store of the committed-marker tests: a
// savepoint whose KafkaSource has partition 0 at 7 and partitions 1 and 2
// at the committed marker, a topic of 3 partitions of 20 records, and
// group orders-job's commit of partition 1 at 12 (partition 2 has none).
func committedMarkers(t *testing.T) (l *flinkckpttest.Layout, dir string, cl *kgo.Client) {
	t.Helper()
	l = savepoints(t, "")
	c3 := sourcestate.OffsetCommitted
	dir = savepoint(t, l, "savepoint-aaaaaa-000000000001", 3, flinkckpttest.KafkaSource("k", "topic", 7, c3, c3))
	cl = kafkaCluster(t, 3, 20)
	commit(t, cl, "orders-job", "topic", map[int32]int64{1: 12})
	return l, dir, cl
}

// A committed marker whose group has no commit for the partition, on a
// partition whose log start is above 0: the deleted records may never have
// been read (the old job's async commit never sent), so data loss naming
// the offsets, as kafkaoffset grades the same partition. Log start 0 stays
// replay (TestKafkaCommittedMarker).
func TestKafkaCommittedMarkerNoCommitTruncated(t *testing.T) {
	l, dir, cl := committedMarkers(t)
	for _, before := range []int64{1, 5} {
		deleteRecords(t, cl, "topic", 2, before)
		c := salvaged(t, l, &salvage.Options{Snapshot: dir, Live: &livecheck.Checkers{Kafka: kafkaoffset.Log{Client: cl}}, KafkaGroup: "orders-job"})
		want := "topic/2: no commit of group orders-job, up to 5 offsets (0..4) deleted, possibly never read"
		if before == 1 {
			want = "topic/2: no commit of group orders-job, up to 1 offset (0) deleted, possibly never read"
		}
		if c.Guarantee != resume.DataLoss || !strings.Contains(warning(c, salvage.WarnDataLoss), want) {
			t.Errorf("log start %d: guarantee %s warnings %v", before, c.Guarantee, c.Warnings)
		}
	}
}
