package sinkstate_test

import (
	"strconv"
	"testing"

	"github.com/resumekit/resumekit/flinkckpt/metadata/sinkstate"
)

// pendingCommitter is a committer of 8 subtasks holding n pending
// committables in all, one per checkpoint, every checkpoint id distinct:
// the worst case for merging the subtasks' checkpoints (issue 31).
func pendingCommitter(n int) *sinkstate.Committer {
	c := &sinkstate.Committer{}
	for s := range 8 {
		st := sinkstate.Subtask{Subtask: int32(s), Version: 2}
		for i := s; i < n; i += 8 {
			st.Checkpoints = append(st.Checkpoints, sinkstate.Checkpoint{CheckpointID: int64(n - i), Pending: 1})
		}
		c.Subtasks = append(c.Subtasks, st)
	}
	return c
}

// BenchmarkPending: Pending() over 10,000 and 80,000 pending committables
// (issue 31: 9.6 MB of committer state took 12–27 s with a linear scan per
// checkpoint). Time and allocations grow linearly (n log n for the sort).
func BenchmarkPending(b *testing.B) {
	for _, n := range []int{10_000, 80_000} {
		c := pendingCommitter(n)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if got := c.PendingCommittables(); got != n {
					b.Fatalf("%d pending, want %d", got, n)
				}
			}
		})
	}
}
