package kafkaoffset

import "testing"

// TestCommitAtZeroBelowTheLogStart: a commit at offset 0 is a commit like
// any other: below a log start of 10 the 10 records in between were deleted
// unread (data loss, start at 10), not a start at 0 that the broker would
// move up silently. A commit of 0 on a log starting at 0 is no loss.
func TestCommitAtZeroBelowTheLogStart(t *testing.T) {
	for _, tc := range []struct {
		start, end, offset, lost int64
		loss                     bool
	}{{10, 20, 10, 10, true}, {0, 20, 0, 0, false}} {
		p := PartitionOffsets{Start: tc.start, End: tc.end, LastStable: -1, Committed: 0, ByTime: -1}
		choose(&p, false, 0)
		if p.Offset != tc.offset || p.From != FromCommit || p.DataLoss != tc.loss || p.Lost != tc.lost || p.Err != nil {
			t.Errorf("commit 0, log %d..%d: offset %d from %s, loss %v (%d), err %v", tc.start, tc.end, p.Offset, p.From, p.DataLoss, p.Lost, p.Err)
		}
	}
}
