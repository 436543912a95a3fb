package livecheck_test

import (
	"errors"
	"testing"

	"github.com/resumekit/resumekit/resume/livecheck"
)

// TestKafkaStart pins the Kafka start rule at its boundaries: the log
// [50, 100] (or [logStart, 100] where a case sets it). The earliest marker
// on a log whose start is above 0 counts the offsets below it as lost, as
// kafkaoffset grades a partition without a commit.
func TestKafkaStart(t *testing.T) {
	for _, tc := range []struct {
		name         string
		offset       int64
		logStart     *int64
		want, lost   int64
		upTo         bool
		resolved     bool
		errAboveEnd  bool
		errOtherwise bool
	}{
		{name: "BelowStart", offset: 10, want: 50, lost: 40},
		{name: "JustBelowStart", offset: 49, want: 50, lost: 1},
		{name: "AtStart", offset: 50, want: 50},
		{name: "Inside", offset: 70, want: 70},
		{name: "AtEnd", offset: 100, want: 100},
		{name: "AboveEnd", offset: 101, errAboveEnd: true},
		{name: "Earliest", offset: livecheck.MarkerEarliest, want: 50, lost: 50, upTo: true, resolved: true},
		{name: "EarliestLogStartOne", offset: livecheck.MarkerEarliest, logStart: ptr(1), want: 1, lost: 1, upTo: true, resolved: true},
		{name: "EarliestLogStartZero", offset: livecheck.MarkerEarliest, logStart: ptr(0), want: 0, resolved: true},
		{name: "Latest", offset: livecheck.MarkerLatest, want: 100, resolved: true},
		{name: "Committed", offset: livecheck.MarkerCommitted, want: livecheck.MarkerCommitted},
		{name: "NoMarker", offset: -4, errOtherwise: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logStart := int64(50)
			if tc.logStart != nil {
				logStart = *tc.logStart
			}
			got, err := livecheck.KafkaStart(tc.offset, logStart, 100)
			switch {
			case tc.errAboveEnd:
				if !errors.Is(err, livecheck.ErrAboveEnd) {
					t.Fatalf("err = %v, want ErrAboveEnd", err)
				}
				return
			case tc.errOtherwise:
				if err == nil || errors.Is(err, livecheck.ErrAboveEnd) {
					t.Fatalf("err = %v, want a bad-offset error", err)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			if got.Offset != tc.want || got.Lost != tc.lost || got.UpTo != tc.upTo || got.Resolved != tc.resolved {
				t.Fatalf("KafkaStart(%d) = %+v, want offset %d lost %d up to %v resolved %v", tc.offset, got, tc.want, tc.lost, tc.upTo, tc.resolved)
			}
		})
	}
}

func ptr(v int64) *int64 { return &v }

func TestPaimonMatches(t *testing.T) {
	for _, tc := range []struct {
		sql, dir string
		want     bool
	}{
		{"db.orders", "s3://wh/db.db/orders", true},
		{"db.orders", "s3://wh/db.db/orders/", true},
		{"db.orders$branch_b", "s3://wh/db.db/orders", true},
		{"db.orders", "s3://wh/db.db/payments", false},
		{"db.orders", "", true},
	} {
		if got := livecheck.PaimonMatches(tc.sql, tc.dir); got != tc.want {
			t.Errorf("PaimonMatches(%s, %s) = %v, want %v", tc.sql, tc.dir, got, tc.want)
		}
	}
}

// TestKafkaLatestAt: a latest marker resolved against the snapshot's time
// starts at the end offset and loses the records from the offset at that
// time to the end (those deleted below the log start included).
func TestKafkaLatestAt(t *testing.T) {
	for _, tc := range []struct {
		at, logStart, logEnd, lost, from int64
	}{
		{at: 100, logStart: 0, logEnd: 100, lost: 0, from: 100},
		{at: 90, logStart: 0, logEnd: 100, lost: 10, from: 90},
		{at: 10, logStart: 30, logEnd: 100, lost: 90, from: 10},
		{at: 120, logStart: 0, logEnd: 100, lost: 0, from: 100},
	} {
		got := livecheck.KafkaLatestAt(tc.at, tc.logStart, tc.logEnd)
		if got.Offset != tc.logEnd || !got.Resolved || got.Lost != tc.lost || got.LostFrom != tc.from || got.Skipped != (tc.lost > 0) {
			t.Errorf("KafkaLatestAt(%d, %d, %d) = %+v, want offset %d, %d lost from %d", tc.at, tc.logStart, tc.logEnd, got, tc.logEnd, tc.lost, tc.from)
		}
	}
}
