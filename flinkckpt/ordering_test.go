package flinkckpt_test

import (
	"testing"
	"time"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
)

// TestOrderDescendantOlderSavepointNoCycle: B descends from A; the
// savepoint S is newer than B but older than A by modification time. The
// old pairwise rule cycled (B>A, S>B, A>S). B inherits A's time, so B wins,
// and the reasons say why truthfully.
func TestOrderDescendantOlderSavepointNoCycle(t *testing.T) {
	e := newEnv(t, "ck/", "s3a://bucket/", nil)
	e.chk(jobA, 50, t0.Add(2*time.Hour), &flinkckpttest.Checkpoint{Shared: []string{"a-1"}})
	e.chk(jobB, 51, t0, &flinkckpttest.Checkpoint{Shared: []string{"a-1"}, SharedJob: jobA})
	sp := flinkckpttest.SavepointName(jobA, 1)
	e.savepoint(sp, 40, t0.Add(time.Hour), nil)
	c, p := e.mustResolve(withRoot(e))
	if p.JobID != jobB || p.CheckpointID != 51 {
		t.Fatalf("chose %s, reasons %q", p.Key, c.Reasons)
	}
	if !hasLine(c.Reasons, `^ranks above `+sp+`: it descends from chk-50 of job `+jobA+`, whose _metadata modification time is newer`) ||
		hasLine(c.Reasons, `^newer than `+sp) {
		t.Errorf("reasons %q", c.Reasons)
	}
	// A descendant that is also the newest keeps the plain reasons.
	e.rec.SetModTime("ck/"+jobB+"/chk-51/_metadata", t0.Add(3*time.Hour))
	c, p = e.mustResolve(withRoot(e))
	if p.JobID != jobB || !hasLine(c.Reasons, `^newer than `+sp+` by _metadata modification time`) {
		t.Errorf("chose %s, reasons %q", p.Key, c.Reasons)
	}
}

// TestBrokenWarningOnlyForSnapshotsRankedAbove: the duplicates warning
// names only broken snapshots that rank above the one chosen; a corrupt
// checkpoint of an old job dir is no reason for it.
func TestBrokenWarningOnlyForSnapshotsRankedAbove(t *testing.T) {
	e := newEnv(t, "ck/", "s3a://bucket/", nil)
	e.chk(jobA, 49, t0.Add(-48*time.Hour), &flinkckpttest.Checkpoint{Shared: shared("a", 1)})
	e.chk(jobA, 50, t0.Add(-47*time.Hour), &flinkckpttest.Checkpoint{Corrupt: true})
	e.chk(jobB, 3, t0, &flinkckpttest.Checkpoint{Shared: shared("b", 1)})
	c, p := e.mustResolve(nil)
	if p.JobID != jobB || hasLine(c.Warnings, "broken") {
		t.Errorf("chose %s, warnings %q", p.Key, c.Warnings)
	}
	// Now the old job's corrupt chk-50 is newer than the new job's chk-3.
	e.rec.SetModTime("ck/"+jobA+"/chk-50/_metadata", t0.Add(time.Hour))
	c, p = e.mustResolve(nil)
	if p.JobID != jobB || !hasWarning(c.Warnings, flinkckpt.WarnOlderThanBroken, `newer ones are broken \(chk-50 of job `+jobA+`\)`) {
		t.Errorf("chose %s, warnings %q", p.Key, c.Warnings)
	}
}
