package kafkaoffset

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestChooseBoundaries checks each rule of choose at and beside its
// boundary.
func TestChooseBoundaries(t *testing.T) {
	const at = 1_000_000
	type out struct {
		Offset   int64
		From     string
		DataLoss bool
		Lost     int64
		Above    bool
	}
	for _, tc := range []struct {
		name  string
		in    PartitionOffsets
		hasAt bool
		want  out
	}{
		{"CommitOneBelowStart", PartitionOffsets{Start: 10, End: 20, Committed: 9, ByTime: -1}, false, out{10, FromCommit, true, 1, false}},
		{"CommitAtStart", PartitionOffsets{Start: 10, End: 20, Committed: 10, ByTime: -1}, false, out{10, FromCommit, false, 0, false}},
		{"CommitAtEnd", PartitionOffsets{Start: 10, End: 20, Committed: 20, ByTime: -1}, false, out{20, FromCommit, false, 0, false}},
		{"CommitOneAboveEnd", PartitionOffsets{Start: 10, End: 20, Committed: 21, ByTime: -1}, false, out{-1, FromCommit, false, 0, true}},
		{"CommitZeroOnEmpty", PartitionOffsets{Start: 0, End: 0, Committed: 0, ByTime: -1}, false, out{0, FromCommit, false, 0, false}},
		{"CommitWinsOverTime", PartitionOffsets{Start: 0, End: 20, Committed: 5, ByTime: 2, ByTimeMillis: at}, true, out{5, FromCommit, false, 0, false}},
		{"NoCommitNoTime", PartitionOffsets{Start: 7, End: 9, Committed: -1, ByTime: -1}, false, out{7, FromLogStart, false, 0, false}},
		{"TimeInsideLog", PartitionOffsets{Start: 7, End: 20, Committed: -1, ByTime: 8, ByTimeMillis: at + 5}, true, out{8, FromTime, false, 0, false}},
		{"TimeAtStartNothingDeleted", PartitionOffsets{Start: 0, End: 20, Committed: -1, ByTime: 0, ByTimeMillis: at + 5}, true, out{0, FromTime, false, 0, false}},
		{"TimeAtStartRecordAtTime", PartitionOffsets{Start: 7, End: 20, Committed: -1, ByTime: 7, ByTimeMillis: at}, true, out{7, FromTime, false, 0, false}},
		{"TimeOlderThanRetained", PartitionOffsets{Start: 7, End: 20, Committed: -1, ByTime: 7, ByTimeMillis: at + 1}, true, out{7, FromTime, true, 7, false}},
		{"NothingAtOrAfterTime", PartitionOffsets{Start: 7, End: 20, Committed: -1, ByTime: -1, ByTimeMillis: -1}, true, out{20, FromEnd, false, 0, false}},
		{"NothingAtOrAfterTimeEmpty", PartitionOffsets{Start: 0, End: 0, Committed: -1, ByTime: -1, ByTimeMillis: -1}, true, out{0, FromEnd, false, 0, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.in
			p.Topic = "t"
			choose(&p, tc.hasAt, at)
			got := out{p.Offset, p.From, p.DataLoss, p.Lost, errors.Is(p.Err, ErrCommitAboveEnd)}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if p.Reason == "" {
				t.Error("no reason")
			}
			if (p.Err != nil) != got.Above {
				t.Errorf("err = %v", p.Err)
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
