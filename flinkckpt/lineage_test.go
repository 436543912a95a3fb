package flinkckpt_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gocloud.dev/blob/fileblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
)

// TestRestartedRunChosenByTime (item 5a): a run that restarted its ids —
// application mode's fixed job id (000…0 before Flink 1.16, derived from
// the HA cluster id since), or any job dir a restored run continued — puts
// a newer chk-3 next to the old run's chk-100. Ids are not time order
// there: the newest run's checkpoint is chosen, with a warning, for every
// job id. It costs one attribute call per run, and nothing without a gap.
func TestRestartedRunChosenByTime(t *testing.T) {
	const (
		zero  = "00000000000000000000000000000000"
		fixed = "0000000011f0e4ed0000000000000000" // 1.16+: the HA cluster id's hash
		neg   = "ffffffffa24a3fb20000000000000000" // a negative hash, sign-extended
	)
	for _, tc := range []struct {
		name, job string
		newer     bool
		want      int64
	}{
		{"FixedZeroNewerLowerID", zero, true, 3},
		{"FixedClusterIDNewerLowerID", fixed, true, 3},
		{"FixedNegativeHashNewerLowerID", neg, true, 3},
		{"OrdinaryJobDirNewerLowerID", jobA, true, 3},
		{"FixedZeroOlderLowerID", zero, false, 100},
		{"OrdinaryJobDirOlderLowerID", jobA, false, 100},
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
			if p.CheckpointID != tc.want {
				t.Fatalf("chose %d, want %d", p.CheckpointID, tc.want)
			}
			if got := hasWarning(c.Warnings, flinkckpt.WarnRestartedRun, `^in job dir ck/`+tc.job+`/ a lower checkpoint id is newer than a higher one \(chk-3 written .*, chk-100 written .*\).*ids are not time order`); got != tc.newer {
				t.Errorf("warning %v, want %v: %q", got, tc.newer, c.Warnings)
			}
			// Two runs probed (chk-100, chk-3) and one shared file checked.
			if got := e.rec.Count(blobtest.OpAttributes); got != 3 {
				t.Errorf("%d attribute calls, want 3", got)
			}
		})
	}
	t.Run("RestoredRunContinuesFromSavepointID", func(t *testing.T) {
		// The old run retained chk-98..100; a new run restored from its
		// savepoint 57 continues at 58 in the same (fixed) job dir.
		e := newEnv(t, "ck/", "s3a://bucket/", nil)
		for i, id := range []int64{98, 99, 100} {
			e.chk(zero, id, t0.Add(-time.Duration(10-i)*time.Hour), &flinkckpttest.Checkpoint{Shared: shared("o", 1)})
		}
		e.chk(zero, 58, t0.Add(-time.Minute*2), &flinkckpttest.Checkpoint{Shared: shared("n", 1)})
		e.chk(zero, 59, t0.Add(-time.Minute), &flinkckpttest.Checkpoint{Shared: shared("n", 1), Incomplete: true})
		c, p := e.mustResolve(nil)
		if p.CheckpointID != 58 || !c.HasWarning(flinkckpt.WarnRestartedRun) {
			t.Errorf("chose %d, warnings %q", p.CheckpointID, c.Warnings)
		}
		if !hasLine(c.Reasons, `^chk-59 of job .*: no _metadata`) || hasLine(c.Reasons, `chk-100`) {
			t.Errorf("reasons %q", c.Reasons)
		}
	})
	t.Run("FailedCheckpointAndOneInProgress", func(t *testing.T) {
		// A failed checkpoint leaves a gap in the ids (Flink deletes its
		// dir) and the crashed job left chk-102 without _metadata: one run
		// whose time is known, one without any _metadata. Ids are time
		// order here: chk-100 is chosen, chk-102 is listed as incomplete,
		// and nothing says a run restarted.
		e := newEnv(t, "ck/", "s3a://bucket/", nil)
		e.chk(jobA, 98, t0.Add(-2*time.Minute), &flinkckpttest.Checkpoint{Shared: shared("a", 1)})
		e.chk(jobA, 100, t0, &flinkckpttest.Checkpoint{Shared: shared("a", 1)})
		e.chk(jobA, 102, t0.Add(time.Minute), &flinkckpttest.Checkpoint{Shared: shared("a", 1), Incomplete: true})
		c, p := e.mustResolve(nil)
		if p.CheckpointID != 100 || c.HasWarning(flinkckpt.WarnRestartedRun) || !hasLine(c.Reasons, `^chk-102 of job .*: no _metadata`) {
			t.Errorf("chose %d, reasons %q, warnings %q", p.CheckpointID, c.Reasons, c.Warnings)
		}
	})
	t.Run("NoGapNoProbe", func(t *testing.T) {
		e := newEnv(t, "ck/", "s3a://bucket/", nil)
		e.chk(zero, 7, t0.Add(-time.Minute), &flinkckpttest.Checkpoint{Shared: shared("a", 1)})
		e.chk(zero, 8, t0, &flinkckpttest.Checkpoint{Shared: shared("a", 1)})
		e.rec.Reset()
		c, p := e.mustResolve(nil)
		if p.CheckpointID != 8 || c.HasWarning(flinkckpt.WarnRestartedRun) || e.rec.Count(blobtest.OpAttributes) != 1 {
			t.Errorf("chose %d, warnings %q, %s", p.CheckpointID, c.Warnings, e.rec)
		}
	})
}

// TestSavepointLineage (item 5b): a savepoint of a job (savepoint-<its
// first 6 hex>-…) with a lower checkpoint id than the job dir's newest
// checkpoint is older in that job's lineage, whatever a copy did to its
// modification time: the checkpoint wins, with a warning. A savepoint with
// a higher id, or of another job, is ranked by time as before; fixed
// application-mode ids tell no lineage (every run shares them).
func TestSavepointLineage(t *testing.T) {
	sp := flinkckpttest.SavepointName(jobA, 1)
	t.Run("CopiedSavepointLowerIDLoses", func(t *testing.T) {
		e := newEnv(t, "ck/", "s3a://bucket/", nil)
		e.chk(jobA, 100, t0, &flinkckpttest.Checkpoint{Shared: shared("a", 1)})
		e.savepoint(sp, 57, t0.Add(24*time.Hour), nil) // copied yesterday: newest modification time
		c, p := e.mustResolve(withRoot(e))
		if p.Savepoint || p.CheckpointID != 100 {
			t.Fatalf("chose %s", p.Key)
		}
		if !hasLine(c.Reasons, `^ranks above `+sp+`: that is a savepoint of the same job at a lower checkpoint id \(57 vs 100\)`) ||
			!hasWarning(c.Warnings, flinkckpt.WarnLineageOverTime, `^`+sp+` \(checkpoint 57\) has a newer _metadata modification time`) {
			t.Errorf("reasons %q, warnings %q", c.Reasons, c.Warnings)
		}
	})
	t.Run("HigherIDSavepointRankedByTime", func(t *testing.T) {
		e := newEnv(t, "ck/", "s3a://bucket/", nil)
		e.chk(jobA, 100, t0, &flinkckpttest.Checkpoint{Shared: shared("a", 1)})
		e.savepoint(sp, 101, t0.Add(time.Minute), &flinkckpttest.Checkpoint{Action: metadata.ActionSuspend}) // stop-with-savepoint
		c, p := e.mustResolve(withRoot(e))
		if !p.Savepoint || p.CheckpointID != 101 || p.PostCheckpointAction != "SUSPEND" || c.HasWarning(flinkckpt.WarnLineageOverTime) ||
			c.HasWarning(flinkckpt.WarnSavepointWhileRunning) {
			t.Errorf("chose %+v, warnings %q", p, c.Warnings)
		}
	})
	t.Run("OtherJobsSavepointRankedByTime", func(t *testing.T) {
		e := newEnv(t, "ck/", "s3a://bucket/", nil)
		e.chk(jobA, 100, t0, &flinkckpttest.Checkpoint{Shared: shared("a", 1)})
		e.savepoint(flinkckpttest.SavepointName(jobB, 1), 5, t0.Add(time.Hour), nil)
		_, p := e.mustResolve(withRoot(e))
		if !p.Savepoint {
			t.Errorf("chose %s", p.Key)
		}
	})
	t.Run("FixedJobIDNoLineage", func(t *testing.T) {
		const zero = "00000000000000000000000000000000"
		e := newEnv(t, "ck/", "s3a://bucket/", nil)
		e.chk(zero, 100, t0, &flinkckpttest.Checkpoint{Shared: shared("a", 1)})
		e.savepoint(flinkckpttest.SavepointName(zero, 1), 57, t0.Add(time.Hour), nil)
		_, p := e.mustResolve(withRoot(e))
		if !p.Savepoint {
			t.Errorf("chose %s: a fixed id's prefix tells no lineage", p.Key)
		}
	})
}

// TestSavepointWhileRunning (item 5c): a savepoint taken while the job kept
// running (post-checkpoint action NONE) is chosen only when the job's later
// checkpoints are unusable, and then warns: restoring it may commit output
// the running job never kept.
func TestSavepointWhileRunning(t *testing.T) {
	sp := flinkckpttest.SavepointName(jobA, 1)
	e := newEnv(t, "ck/", "s3a://bucket/", nil)
	e.savepoint(sp, 57, t0.Add(-time.Hour), nil) // flink savepoint: NONE
	e.chk(jobA, 60, t0, &flinkckpttest.Checkpoint{Shared: shared("a", 1), SkipFiles: true})
	c, p := e.mustResolve(withRoot(e))
	if !p.Savepoint || p.PostCheckpointAction != "NONE" {
		t.Fatalf("chose %+v", p)
	}
	if !hasWarning(c.Warnings, flinkckpt.WarnSavepointWhileRunning, `^`+sp+` was taken while its job kept running \(post-checkpoint action NONE\), and job dir ck/`+jobA+`/ holds later checkpoints \(up to chk-60\)`) ||
		!c.HasWarning(flinkckpt.WarnOlderThanBroken) {
		t.Errorf("warnings %q", c.Warnings)
	}
	// A drained savepoint (TERMINATE) is a clean stop: no such warning.
	e2 := newEnv(t, "ck/", "s3a://bucket/", nil)
	e2.savepoint(sp, 57, t0.Add(-time.Hour), &flinkckpttest.Checkpoint{Drained: true})
	e2.chk(jobA, 60, t0, &flinkckpttest.Checkpoint{Shared: shared("a", 1), SkipFiles: true})
	c, _ = e2.mustResolve(withRoot(e2))
	if c.HasWarning(flinkckpt.WarnSavepointWhileRunning) || !c.HasWarning(flinkckpt.WarnDrainedSavepoint) {
		t.Errorf("drained: warnings %q", c.Warnings)
	}
}

// TestCheckpointIDMismatch (item 5d): a chk-42 dir whose _metadata records
// checkpoint 40 was copied by hand; both numbers are reported, in the
// candidate and in List.
func TestCheckpointIDMismatch(t *testing.T) {
	e := newEnv(t, "ck/", "s3a://bucket/", nil)
	e.chk(jobA, 42, t0, &flinkckpttest.Checkpoint{Shared: shared("a", 1), MetadataID: 40})
	c, p := e.mustResolve(nil)
	if p.CheckpointID != 40 || !hasWarning(c.Warnings, flinkckpt.WarnCheckpointIDMismatch, `^chk-42's _metadata records checkpoint id 40, not 42 as its dir name says`) {
		t.Errorf("chose %d, warnings %q", p.CheckpointID, c.Warnings)
	}
	snaps, err := flinkckpt.List(e.ctx, e.bucket, "ck/", nil)
	if err != nil || len(snaps) != 1 || snaps[0].CheckpointID != 40 || !hasLine([]string{snaps[0].Reason}, `records checkpoint id 40, not 42`) {
		t.Errorf("List: %+v, %v", snaps, err)
	}
}

// TestRealFlinkSavepointsByID (issue 33 item 1): real Flink 1.20.3's two
// savepoints of one job in conformance F6s (id 3, then the stop-with-
// savepoint id 6, the same operators): a copy that wrote id 3's _metadata
// 5 ms after id 6's must not make id 3 the newer one. Within one lineage
// the checkpoint id decides, whatever the times; the warning says so.
func TestRealFlinkSavepointsByID(t *testing.T) {
	src := filepath.Join(realFlinkDir(t), "F6s", "sp")
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	const id6, id3 = "savepoint-3ce641-6f1a07e53b19", "savepoint-3ce641-fe284895a79a"
	at := time.Date(2026, 11, 29, 19, 40, 0, 0, time.UTC)
	for name, mod := range map[string]time.Time{id6: at, id3: at.Add(5 * time.Millisecond)} {
		if err := os.Chtimes(filepath.Join(dir, name, "_metadata"), mod, mod); err != nil {
			t.Fatal(err)
		}
	}
	b, err := fileblob.OpenBucket(dir, &fileblob.Options{Metadata: fileblob.MetadataDontWrite})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	r, err := flinkckpt.NewResolver(b, "", &flinkckpt.Options{FlinkRoot: "file://" + filepath.ToSlash(dir)})
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.Resolve(context.Background())
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	p, err := flinkckpt.PositionOf(c.Position)
	if err != nil {
		t.Fatal(err)
	}
	if p.CheckpointID != 6 || !strings.Contains(p.Key, id6) {
		t.Fatalf("chose %s (checkpoint %d), %s: %q", p.Key, p.CheckpointID, c.Guarantee, c.Reasons)
	}
	if !hasLine(c.Reasons, `^ranks above `+id3+`: that is a savepoint of the same job at a lower checkpoint id \(3 vs 6\)`) ||
		!hasWarning(c.Warnings, flinkckpt.WarnLineageOverTime, `^`+id3+` \(checkpoint 3\) has a newer _metadata modification time \(2026-11-29T19:40:00.005Z\)`) ||
		c.HasWarning(flinkckpt.WarnNearTie) {
		t.Errorf("reasons %q, warnings %q", c.Reasons, c.Warnings)
	}
}

// TestNearTieSaid (issue 33 item 1): two savepoints no lineage orders
// (different jobs) whose modification times are 5 ms apart: the order is
// not known, and the candidate says so rather than pass it off as newer.
// A second apart or more is an order; a lineage is never a near-tie.
func TestNearTieSaid(t *testing.T) {
	a, b := flinkckpttest.SavepointName(jobA, 1), flinkckpttest.SavepointName(jobB, 1)
	for _, tc := range []struct {
		name string
		gap  time.Duration
		warn bool
	}{{"5ms", 5 * time.Millisecond, true}, {"3s", 3 * time.Second, false}} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, "sp/", "s3a://bucket/", nil)
			e.savepoint(a, 9, t0, nil)
			e.savepoint(b, 4, t0.Add(tc.gap), nil)
			c, p := e.mustResolve(withRoot(e))
			if !strings.Contains(p.Key, b) {
				t.Fatalf("chose %s", p.Key)
			}
			if got := hasWarning(c.Warnings, flinkckpt.WarnNearTie, `^`+b+` was chosen over `+a+` by _metadata modification times only 5ms apart`); got != tc.warn {
				t.Errorf("near-tie warning %v, want %v: %q", got, tc.warn, c.Warnings)
			}
			if tc.warn && !hasLine(c.Reasons, `^ranks above `+a+` by a near-tie of _metadata modification times`) {
				t.Errorf("reasons %q", c.Reasons)
			}
		})
	}
}
