package kafkaoffset

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestChooseBoundaries checks each rule of choose at and beside its
// boundary.
func TestChooseBoundaries(t *testing.T) {
	const at = 1_000_000
	type out struct {
		Offset   int64
		From     OffsetSource
		DataLoss bool
		Lost     int64
		Above    bool
		Lowered  bool
	}
	for _, tc := range []struct {
		name  string
		in    PartitionOffsets
		hasAt bool
		want  out
	}{
		{"CommitOneBelowStart", PartitionOffsets{Start: 10, End: 20, LastStable: -1, Committed: 9, ByTime: -1}, false, out{10, FromCommit, true, 1, false, false}},
		{"CommitAtStart", PartitionOffsets{Start: 10, End: 20, LastStable: -1, Committed: 10, ByTime: -1}, false, out{10, FromCommit, false, 0, false, false}},
		{"CommitAtEnd", PartitionOffsets{Start: 10, End: 20, LastStable: -1, Committed: 20, ByTime: -1}, false, out{20, FromCommit, false, 0, false, false}},
		{"CommitOneAboveEnd", PartitionOffsets{Start: 10, End: 20, LastStable: -1, Committed: 21, ByTime: -1}, false, out{-1, FromCommit, false, 0, true, false}},
		{"CommitZeroOnEmpty", PartitionOffsets{Start: 0, End: 0, LastStable: -1, Committed: 0, ByTime: -1}, false, out{0, FromCommit, false, 0, false, false}},
		{"CommitWinsOverTime", PartitionOffsets{Start: 0, End: 20, LastStable: -1, Committed: 5, ByTime: 2, ByTimeMillis: at}, true, out{5, FromCommit, false, 0, false, false}},
		// No commit and no time: the log start; records deleted below it
		// (start above 0) may never have been read: loss of the offsets.
		{"NoCommitNoTime", PartitionOffsets{Start: 0, End: 9, LastStable: -1, Committed: -1, ByTime: -1}, false, out{0, FromLogStart, false, 0, false, false}},
		{"NoCommitNoTimeTruncated", PartitionOffsets{Start: 7, End: 9, LastStable: -1, Committed: -1, ByTime: -1}, false, out{7, FromLogStart, true, 7, false, false}},
		{"NoCommitNoTimeTruncatedOne", PartitionOffsets{Start: 1, End: 9, LastStable: -1, Committed: -1, ByTime: -1}, false, out{1, FromLogStart, true, 1, false, false}},
		{"TimeInsideLog", PartitionOffsets{Start: 7, End: 20, LastStable: -1, Committed: -1, ByTime: 8, ByTimeMillis: at + 5}, true, out{8, FromTime, false, 0, false, false}},
		{"TimeAtStartNothingDeleted", PartitionOffsets{Start: 0, End: 20, LastStable: -1, Committed: -1, ByTime: 0, ByTimeMillis: at + 5}, true, out{0, FromTime, false, 0, false, false}},
		// Deleted records below offset 7 can share the time's millisecond:
		// possible loss counts as loss (the package doc's decision).
		{"TimeAtStartRecordAtTime", PartitionOffsets{Start: 7, End: 20, LastStable: -1, Committed: -1, ByTime: 7, ByTimeMillis: at}, true, out{7, FromTime, true, 7, false, false}},
		{"TimeAboveStartRecordAtTime", PartitionOffsets{Start: 7, End: 20, LastStable: -1, Committed: -1, ByTime: 8, ByTimeMillis: at}, true, out{8, FromTime, false, 0, false, false}},
		{"TimeOlderThanRetained", PartitionOffsets{Start: 7, End: 20, LastStable: -1, Committed: -1, ByTime: 7, ByTimeMillis: at + 1}, true, out{7, FromTime, true, 7, false, false}},
		{"NothingAtOrAfterTime", PartitionOffsets{Start: 7, End: 20, LastStable: -1, Committed: -1, ByTime: -1, ByTimeMillis: -1}, true, out{20, FromEnd, false, 0, false, false}},
		{"NothingAtOrAfterTimeEmpty", PartitionOffsets{Start: 0, End: 0, LastStable: -1, Committed: -1, ByTime: -1, ByTimeMillis: -1}, true, out{0, FromEnd, false, 0, false, false}},
		// Every record deleted: the same question as one record left
		// (TimeOlderThanRetained), graded the same, with the count.
		{"EveryRecordDeleted", PartitionOffsets{Start: 7, End: 7, LastStable: 7, Committed: -1, ByTime: -1, ByTimeMillis: -1}, true, out{7, FromEnd, true, 7, false, false}},
		{"EveryRecordDeletedNoTime", PartitionOffsets{Start: 7, End: 7, LastStable: 7, Committed: -1, ByTime: -1}, false, out{7, FromLogStart, true, 7, false, false}},
		// The last stable offset (read_committed): starts above it are
		// lowered to it, starts at or below it stay.
		{"TimeAboveStable", PartitionOffsets{Start: 0, End: 10, LastStable: 5, Committed: -1, ByTime: 7, ByTimeMillis: at}, true, out{5, FromTime, false, 0, false, true}},
		{"TimeAtStable", PartitionOffsets{Start: 0, End: 10, LastStable: 5, Committed: -1, ByTime: 5, ByTimeMillis: at}, true, out{5, FromTime, false, 0, false, false}},
		{"TimeBelowStable", PartitionOffsets{Start: 0, End: 10, LastStable: 5, Committed: -1, ByTime: 4, ByTimeMillis: at}, true, out{4, FromTime, false, 0, false, false}},
		{"EndAboveStable", PartitionOffsets{Start: 0, End: 10, LastStable: 5, Committed: -1, ByTime: -1, ByTimeMillis: -1}, true, out{5, FromEnd, false, 0, false, true}},
		{"CommitAboveStable", PartitionOffsets{Start: 0, End: 10, LastStable: 5, Committed: 8, ByTime: -1}, false, out{5, FromCommit, false, 0, false, true}},
		{"CommitAtStable", PartitionOffsets{Start: 0, End: 10, LastStable: 5, Committed: 5, ByTime: -1}, false, out{5, FromCommit, false, 0, false, false}},
		{"CommitBelowStartWithStable", PartitionOffsets{Start: 3, End: 10, LastStable: 5, Committed: 1, ByTime: -1}, false, out{3, FromCommit, true, 2, false, false}},
		{"LogStartWithOpenTransaction", PartitionOffsets{Start: 0, End: 10, LastStable: 0, Committed: -1, ByTime: -1}, false, out{0, FromLogStart, false, 0, false, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.in
			p.Topic = "t"
			choose(&p, tc.hasAt, at)
			got := out{p.Offset, p.From, p.DataLoss, p.Lost, errors.Is(p.Err, ErrCommitAboveEnd), p.LoweredToStable}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if p.Reason == "" {
				t.Error("no reason")
			}
			if (p.Err != nil) != got.Above {
				t.Errorf("err = %v", p.Err)
			}
			if got.Lowered && !strings.Contains(p.Reason, "to the last stable offset") {
				t.Errorf("reason %q does not say the start was lowered", p.Reason)
			}
		})
	}
}

func TestMoved(t *testing.T) {
	res := []PartitionOffsets{{Topic: "t", Partition: 0, Committed: 5}, {Topic: "t", Partition: 1, Committed: -1}, {Topic: "t", Partition: 2, Committed: 3}}
	if err := moved(map[tp]int64{{"t", 0}: 5, {"t", 2}: 3}, res, "g", 1); err != nil {
		t.Errorf("unchanged: %v", err)
	}
	err := moved(map[tp]int64{{"t", 0}: 4, {"t", 1}: 1}, res, "g", 1)
	if !errors.Is(err, ErrStillCommitting) {
		t.Fatalf("err = %v", err)
	}
	want := `kafkaoffset: the group is still committing: the old job seems to be running: group "g"'s commits moved within 1ns: t/0 4→5, t/1 1→none, t/2 none→3`
	if err.Error() != want {
		t.Errorf("err = %q\nwant  %q", err, want)
	}
}
