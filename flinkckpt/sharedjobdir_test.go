package flinkckpt_test

import (
	"testing"
	"time"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
)

// TestSharedJobDirRestartedRunWarns: application mode's fixed job id puts
// every run in one job dir; a run whose HA store was lost restarts ids, so
// the old run's chk-100 sits next to the new run's chk-3. Id order stays
// (chk-100 wins) but a warning says chk-3 is newer, for one extra
// attribute call, and only in that job dir.
func TestSharedJobDirRestartedRunWarns(t *testing.T) {
	const zero = "00000000000000000000000000000000"
	for _, tc := range []struct {
		name, job string
		newer     bool
		warn      bool
		extra     int
	}{
		{"SharedJobDirNewerLowerID", zero, true, true, 1},
		{"SharedJobDirOlderLowerID", zero, false, false, 1},
		{"OrdinaryJobDir", jobA, true, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, "ck/", "s3a://bucket/", nil)
			e.chk(tc.job, 99, t0.Add(-49*time.Hour), &flinkckpttest.Checkpoint{Shared: shared("o", 1)})
			e.chk(tc.job, 100, t0.Add(-48*time.Hour), &flinkckpttest.Checkpoint{Shared: shared("o", 1)})
			at := t0.Add(-50 * time.Hour)
			if tc.newer {
				at = t0
			}
			e.chk(tc.job, 3, at, &flinkckpttest.Checkpoint{Shared: shared("n", 1)})
			e.rec.Reset()
			c, p := e.mustResolve(nil)
			if p.CheckpointID != 100 {
				t.Fatalf("chose %d", p.CheckpointID)
			}
			if got := hasWarning(c.Warnings, flinkckpt.WarnRestartedRun, `^chk-3 of job `+tc.job+` has a newer _metadata .* than the chosen chk-100`); got != tc.warn {
				t.Errorf("warning %v, want %v: %q", got, tc.warn, c.Warnings)
			}
			if got := e.rec.Count(blobtest.OpAttributes); got != 1+tc.extra {
				t.Errorf("%d attribute calls, want %d", got, 1+tc.extra)
			}
		})
	}
}
