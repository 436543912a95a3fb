package salvage_test

import (
	"context"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sourcestate"
	"github.com/resumekit/resumekit/flinkckpt/salvage"
	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/resume"
)

// The committed marker (a partition the old job, started with
// OffsetsInitializer.committedOffsets(), had not read yet) starts at the
// old job's group's commit when the group is given: checked against the
// log like any offset (a commit below the log start is data loss). Without
// the group, or where the group has no commit, the partition is named and
// left to the connector (replay).
func TestKafkaCommittedMarker(t *testing.T) {
	ctx := context.Background()
	b := memblob.OpenBucket(nil)
	defer b.Close()
	l := &flinkckpttest.Layout{Bucket: b, Root: "s3a://b/"}
	c3 := sourcestate.OffsetCommitted
	w, err := l.Savepoint(ctx, "savepoint-aaaaaa-000000000001", 3, &flinkckpttest.Checkpoint{
		Sources: []flinkckpttest.Source{flinkckpttest.KafkaSource("k", "topic", 7, c3, c3)}})
	if err != nil {
		t.Fatal(err)
	}
	cl := kafkaCluster(t, 3, 20)
	adm := kadm.NewClient(cl)
	commit := make(kadm.Offsets)
	commit.AddOffset("topic", 1, 12, -1) // partition 2: no commit
	if _, err := adm.CommitOffsets(ctx, "orders-job", commit); err != nil {
		t.Fatal(err)
	}
	resolve := func(group string) resume.Candidate {
		t.Helper()
		r, err := salvage.NewResolver(b, "", &salvage.Options{Snapshot: w.Dir, Kafka: kafkaoffset.Log{Client: cl}, KafkaGroup: group})
		if err != nil {
			t.Fatal(err)
		}
		c, err := r.Resolve(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return c
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
	commit = make(kadm.Offsets)
	commit.AddOffset("topic", 2, 20, -1)
	if _, err := adm.CommitOffsets(ctx, "orders-job", commit); err != nil {
		t.Fatal(err)
	}
	del := make(kadm.Offsets)
	del.AddOffset("topic", 1, 15, -1)
	if resp, err := adm.DeleteRecords(ctx, del); err != nil || resp.Error() != nil {
		t.Fatal(err)
	}
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

func warning(c resume.Candidate, code resume.WarningCode) string {
	for _, w := range c.Warnings {
		if w.Code == code {
			return w.Text
		}
	}
	return ""
}

// A committed marker whose group has no commit for the partition, on a
// partition whose log start is above 0: the deleted records may never have
// been read (the old job's async commit never sent), so data loss naming
// the offsets, as kafkaoffset grades the same partition. Log start 0 stays
// replay (TestKafkaCommittedMarker).
func TestKafkaCommittedMarkerNoCommitTruncated(t *testing.T) {
	ctx := context.Background()
	b := memblob.OpenBucket(nil)
	defer b.Close()
	l := &flinkckpttest.Layout{Bucket: b, Root: "s3a://b/"}
	c3 := sourcestate.OffsetCommitted
	w, err := l.Savepoint(ctx, "savepoint-aaaaaa-000000000001", 3, &flinkckpttest.Checkpoint{
		Sources: []flinkckpttest.Source{flinkckpttest.KafkaSource("k", "topic", 7, c3, c3)}})
	if err != nil {
		t.Fatal(err)
	}
	cl := kafkaCluster(t, 3, 20)
	adm := kadm.NewClient(cl)
	commit := make(kadm.Offsets)
	commit.AddOffset("topic", 1, 12, -1) // partition 2: no commit
	if _, err := adm.CommitOffsets(ctx, "orders-job", commit); err != nil {
		t.Fatal(err)
	}
	for _, before := range []int64{1, 5} {
		del := make(kadm.Offsets)
		del.AddOffset("topic", 2, before, -1)
		if resp, err := adm.DeleteRecords(ctx, del); err != nil || resp.Error() != nil {
			t.Fatal(err, resp.Error())
		}
		r, err := salvage.NewResolver(b, "", &salvage.Options{Snapshot: w.Dir, Kafka: kafkaoffset.Log{Client: cl}, KafkaGroup: "orders-job"})
		if err != nil {
			t.Fatal(err)
		}
		c, err := r.Resolve(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := "topic/2: no commit of group orders-job, up to 5 offsets (0..4) deleted, possibly never read"
		if before == 1 {
			want = "topic/2: no commit of group orders-job, up to 1 offset (0) deleted, possibly never read"
		}
		if c.Guarantee != resume.DataLoss || !strings.Contains(warning(c, salvage.WarnDataLoss), want) {
			t.Errorf("log start %d: guarantee %s warnings %v", before, c.Guarantee, c.Warnings)
		}
	}
}
