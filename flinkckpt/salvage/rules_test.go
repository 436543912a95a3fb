package salvage_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sourcestate"
	"github.com/resumekit/resumekit/flinkckpt/salvage"
	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/paimon/paimontest"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/livecheck"
)

// TestKafkaOffsetAgainstTheLogBounds: a salvaged next offset equal to
// today's end offset is the caught-up reader (nothing to read yet), one
// past it is an error (the topic was recreated or truncated), never a
// candidate; at today's log start nothing is lost, one below it one record
// is.
func TestKafkaOffsetAgainstTheLogBounds(t *testing.T) {
	ctx := context.Background()
	cl := kafkaCluster(t, 1, 20)        // offsets 0..19: end offset 20
	deleteRecords(t, cl, "topic", 0, 4) // log start 4
	for i, tc := range []struct {
		offset int64
		err    string // substring; "" for a candidate
		lost   int64
		start  int64
	}{
		{20, "", 0, 20},
		{21, "the snapshot's next offset 21 is above today's end offset 20", 0, 0},
		{4, "", 0, 4},
		{3, "", 1, 4},
	} {
		l := savepoints(t, "")
		dir := savepoint(t, l, "savepoint-aaaaaa-00000000001"+string(rune('0'+i)), 9, flinkckpttest.KafkaSource("k", "topic", tc.offset))
		c, err := salvager(t, l, &salvage.Options{Snapshot: dir, Live: &livecheck.Checkers{Kafka: kafkaoffset.Log{Client: cl}}}).Resolve(ctx)
		if tc.err != "" {
			if err == nil || errors.Is(err, resume.ErrNoPosition) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("offset %d: err %v, want %q", tc.offset, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("offset %d: %v", tc.offset, err)
		}
		ks := kafkaStarts(t, c)
		if len(ks) != 1 || ks[0].Offset != tc.start || ks[0].Lost != tc.lost {
			t.Errorf("offset %d: starts %+v, want offset %d, %d lost", tc.offset, ks, tc.start, tc.lost)
		}
		if lossy := c.Guarantee == resume.DataLoss || c.HasWarning(salvage.WarnDataLoss); lossy != (tc.lost > 0) {
			t.Errorf("offset %d: guarantee %s warnings %v, want data loss %v", tc.offset, c.Guarantee, c.Warnings, tc.lost > 0)
		}
	}
}

// TestPaimonSnapshotAtTheEarliestIsNotExpired: snapshots below 20 expired.
// A salvaged next snapshot of 20 reads on from there (no loss, no warning
// about a range, never "snapshots 20..19"); 19 lost exactly snapshot 19.
func TestPaimonSnapshotAtTheEarliestIsNotExpired(t *testing.T) {
	l := savepoints(t, "sp/")
	tb := paimontest.New(t, l.Bucket, "wh/shop.db/orders").Schema(nil).CommitEvery(30, time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC), time.Minute)
	tb.ExpireBefore(20)
	table, err := paimon.NewTable(l.Bucket, tb.Path(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, next := range []int64{20, 19, 21} {
		dir := savepoint(t, l, "savepoint-aaaaaa-00000000002"+string(rune('0'+i)), 9, flinkckpttest.MonitorSource("orders-source", next))
		// The consumer bound (PaimonConsumer): an unbound MonitorSource is
		// data-loss whatever the expiry (TestPaimonMonitorSourceSalvage).
		c := salvaged(t, l, &salvage.Options{Snapshot: dir, Live: &livecheck.Checkers{Paimon: table}, PaimonConsumer: "orders-v2"})
		pos, err := salvage.PositionOf(c.Position)
		if err != nil {
			t.Fatal(err)
		}
		ps := pos.Sources[0].Paimon
		lost := next < 20
		if ps.NextSnapshot != max(next, 20) || (c.Guarantee == resume.DataLoss) != lost || c.HasWarning(salvage.WarnDataLoss) != lost {
			t.Errorf("next snapshot %d: start %d, guarantee %s, warnings %v", next, ps.NextSnapshot, c.Guarantee, c.Warnings)
		}
		for _, w := range c.Warnings {
			if strings.Contains(w.Text, "snapshots 20..19") || w.Code == salvage.WarnDataLoss && !strings.Contains(w.Text, "snapshots 19..19") {
				t.Errorf("next snapshot %d: warning %s", next, w.Text)
			}
		}
	}
}

// TestKafkaOnlyMarkersGivesNoSpecificOffsets: one topic whose every
// partition is at an unresolved marker (no live log given) has no offset
// to name: no scan.startup.specific-offsets option (an empty one would
// make Flink fail or start nowhere), and it is not the several-topics case.
func TestKafkaOnlyMarkersGivesNoSpecificOffsets(t *testing.T) {
	l := savepoints(t, "")
	dir := savepoint(t, l, "savepoint-aaaaaa-000000000031", 9, flinkckpttest.KafkaSource("k", "topic", sourcestate.OffsetCommitted, sourcestate.OffsetEarliest))
	c := salvaged(t, l, &salvage.Options{Snapshot: dir})
	opts := c.Position.Launch().Options
	if _, ok := opts["scan.startup.specific-offsets"]; ok || c.HasWarning(salvage.WarnSeveralTopics) || !c.HasWarning(salvage.WarnUnresolvedMarker) {
		t.Errorf("launch options %v, warnings %v", opts, c.Warnings)
	}
}

// TestPaimonNextSnapshotAboveLatest: the table's latest snapshot is 30. A
// salvaged next snapshot of 31 is the caught-up reader waiting for the next
// commit; 32 is beyond anything the table committed (recreated?): an
// error, never a candidate.
func TestPaimonNextSnapshotAboveLatest(t *testing.T) {
	l := savepoints(t, "sp/")
	tb := paimontest.New(t, l.Bucket, "wh/shop.db/orders").Schema(nil).CommitEvery(30, time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC), time.Minute)
	table, err := paimon.NewTable(l.Bucket, tb.Path(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, next := range []int64{30, 31, 32} {
		dir := savepoint(t, l, "savepoint-aaaaaa-00000000004"+string(rune('0'+i)), 9, flinkckpttest.MonitorSource("orders-source", next))
		c, err := salvager(t, l, &salvage.Options{Snapshot: dir, Live: &livecheck.Checkers{Paimon: table}, PaimonConsumer: "orders-v2"}).Resolve(context.Background())
		if next <= 31 {
			if err != nil || c.Guarantee == resume.DataLoss {
				t.Errorf("next snapshot %d: %v (%s)", next, err, c.Guarantee)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), "next snapshot 32 is above the latest snapshot 30") {
			t.Errorf("next snapshot %d: err %v", next, err)
		}
	}
}

// TestMySQLTimestampStartInMillis: a binlog offset of kind TIMESTAMP (a
// timestamp start the reader had not resolved) launches with
// scan.startup.timestamp-millis, the offset's seconds times 1000.
func TestMySQLTimestampStartInMillis(t *testing.T) {
	l := savepoints(t, "")
	dir := savepoint(t, l, "savepoint-aaaaaa-000000000051", 9, flinkckpttest.MySQLSource("cdc", sourcestate.BinlogOffset{Kind: sourcestate.BinlogTimestamp, TsSec: 1764410400}))
	c := salvaged(t, l, &salvage.Options{Snapshot: dir})
	opts := c.Position.Launch().Options
	if opts["scan.startup.mode"] != "timestamp" || opts["scan.startup.timestamp-millis"] != "1764410400000" {
		t.Errorf("launch options %v", opts)
	}
}
