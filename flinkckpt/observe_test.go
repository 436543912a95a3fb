package flinkckpt_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/resume"
)

// TestObserveWindow (item 8): with Options.Observe the location is listed
// again after the window; a newer chk-<n> appearing means the old job
// still runs (with num-retained 1 it would delete the chosen checkpoint at
// its next one): Resolve fails. The wait is a hook: no sleeping here.
func TestObserveWindow(t *testing.T) {
	t.Run("NewCheckpointAppears", func(t *testing.T) {
		e := newEnv(t, "ck/", "s3a://bucket/", nil)
		e.chk(jobA, 41, t0, &flinkckpttest.Checkpoint{Shared: shared("a", 1)})
		waited := 0
		_, err := e.resolve(&flinkckpt.Options{Observe: 30 * time.Second, Wait: func(ctx context.Context, d time.Duration) error {
			waited++
			if d != 30*time.Second {
				t.Errorf("waited %s", d)
			}
			e.chk(jobA, 42, t0.Add(time.Minute), &flinkckpttest.Checkpoint{Shared: shared("a", 1)})
			return nil
		}})
		var sr *flinkckpt.StillRunningError
		if waited != 1 || !errors.As(err, &sr) || !errors.Is(err, flinkckpt.ErrStillRunning) || errors.Is(err, resume.ErrNoPosition) ||
			len(sr.Appeared) != 1 || sr.Appeared[0] != "ck/"+jobA+"/chk-42/" || !strings.Contains(err.Error(), "num-retained 1") {
			t.Errorf("waited %d, err %v", waited, err)
		}
	})
	t.Run("NewJobDirAppears", func(t *testing.T) {
		e := newEnv(t, "ck/", "s3a://bucket/", nil)
		e.chk(jobA, 41, t0, &flinkckpttest.Checkpoint{Shared: shared("a", 1)})
		_, err := e.resolve(&flinkckpt.Options{Observe: time.Second, Wait: func(context.Context, time.Duration) error {
			e.chk(jobB, 1, t0, &flinkckpttest.Checkpoint{Shared: shared("b", 1)})
			return nil
		}})
		if !errors.Is(err, flinkckpt.ErrStillRunning) || !strings.Contains(err.Error(), "ck/"+jobB+"/chk-1/") {
			t.Errorf("err %v", err)
		}
	})
	t.Run("Quiet", func(t *testing.T) {
		e := newEnv(t, "ck/", "s3a://bucket/", nil)
		e.chk(jobA, 41, t0, &flinkckpttest.Checkpoint{Shared: shared("a", 1)})
		c, p := e.mustResolve(&flinkckpt.Options{Observe: time.Minute, Now: func() time.Time { return t0.Add(10 * time.Second) },
			Wait: func(context.Context, time.Duration) error { return nil }})
		if p.CheckpointID != 41 || !hasLine(c.Reasons, `^observed "ck/" for 1m0s: no new checkpoint appeared \(the old job is not checkpointing\)`) || c.HasWarning(flinkckpt.WarnNotObserved) {
			t.Errorf("chose %d, reasons %q, warnings %q", p.CheckpointID, c.Reasons, c.Warnings)
		}
	})
	t.Run("SingleCheckpointDir", func(t *testing.T) {
		// Pointed at one chk-<n> dir, the window watches its job dir: a
		// newer chk-<n> there means the job runs on (and, retaining one,
		// deletes this one). A newer one already there before the window is
		// no news.
		e := newEnv(t, "ck/", "s3a://bucket/", nil)
		e.chk(jobA, 41, t0, &flinkckpttest.Checkpoint{Shared: shared("a", 1)})
		e.chk(jobA, 42, t0.Add(time.Minute), &flinkckpttest.Checkpoint{Shared: shared("a", 1)})
		r, err := flinkckpt.NewResolver(e.bucket, "ck/"+jobA+"/chk-41/", &flinkckpt.Options{FlinkRoot: e.l.FlinkRoot(), Observe: time.Minute,
			Wait: func(context.Context, time.Duration) error {
				e.chk(jobA, 43, t0.Add(2*time.Minute), &flinkckpttest.Checkpoint{Shared: shared("a", 1)})
				return nil
			}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = r.Resolve(e.ctx)
		var sr *flinkckpt.StillRunningError
		if !errors.As(err, &sr) || len(sr.Appeared) != 1 || sr.Appeared[0] != "ck/"+jobA+"/chk-43/" {
			t.Errorf("err %v", err)
		}
		r, _ = flinkckpt.NewResolver(e.bucket, "ck/"+jobA+"/chk-41/", &flinkckpt.Options{FlinkRoot: e.l.FlinkRoot(), Observe: time.Minute,
			Wait: func(context.Context, time.Duration) error { return nil }})
		c, err := r.Resolve(e.ctx)
		if err != nil || !hasLine(c.Reasons, `^observed job dir "ck/`+jobA+`/" for 1m0s: no new checkpoint appeared`) {
			t.Errorf("quiet: %v, reasons %q", err, c.Reasons)
		}
	})
	t.Run("SavepointsOnly", func(t *testing.T) {
		// A savepoint dir says nothing about the job's checkpoints: the
		// reason does not claim the job stopped.
		e := newEnv(t, "sp/", "s3a://bucket/", nil)
		e.savepoint(flinkckpttest.SavepointName(jobA, 1), 7, t0, nil)
		c, _ := e.mustResolve(&flinkckpt.Options{FlinkRoot: e.l.FlinkRoot(), Observe: time.Minute,
			Wait: func(context.Context, time.Duration) error { return nil }})
		if hasLine(c.Reasons, "not checkpointing") || !hasLine(c.Reasons, `^observed "sp/" for 1m0s: no new savepoint appeared; it holds no checkpoints, so this says nothing about whether the old job still runs`) {
			t.Errorf("reasons %q", c.Reasons)
		}
	})
	t.Run("CancelledDuringWindow", func(t *testing.T) {
		e := newEnv(t, "ck/", "s3a://bucket/", nil)
		e.chk(jobA, 41, t0, &flinkckpttest.Checkpoint{Shared: shared("a", 1)})
		ctx, cancel := context.WithCancel(context.Background())
		r, err := flinkckpt.NewResolver(e.bucket, "ck/", &flinkckpt.Options{Observe: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		go cancel() // the default wait returns when ctx is done, not after an hour
		if _, err := r.Resolve(ctx); !errors.Is(err, context.Canceled) {
			t.Errorf("err %v", err)
		}
	})
}

// TestNotObservedWarning (item 8): without a window, a _metadata younger
// than a minute warns that the old job may still be running.
func TestNotObservedWarning(t *testing.T) {
	e := newEnv(t, "ck/", "s3a://bucket/", nil)
	e.chk(jobA, 41, t0, &flinkckpttest.Checkpoint{Shared: shared("a", 1)})
	for _, tc := range []struct {
		now  time.Time
		warn bool
	}{{t0.Add(20 * time.Second), true}, {t0.Add(2 * time.Minute), false}} {
		now := tc.now
		c, _ := e.mustResolve(&flinkckpt.Options{Now: func() time.Time { return now }})
		if got := hasWarning(c.Warnings, flinkckpt.WarnNotObserved, `^the newest _metadata \(chk-41 of job .*, written 2026-11-29T10:00:00Z\) is younger than a minute`); got != tc.warn {
			t.Errorf("now %s: warning %v, want %v: %q", now, got, tc.warn, c.Warnings)
		}
	}
}

// TestFixedJobIDWarning (item 8): a checkpoint in application mode's fixed
// job dir warns that a resubmission under the same id is ignored while the
// JobResultStore holds the old job's terminal result.
func TestFixedJobIDWarning(t *testing.T) {
	for _, job := range []string{"00000000000000000000000000000000", "0000000011f0e4ed0000000000000000", jobA} {
		e := newEnv(t, "ck/", "s3a://bucket/", nil)
		e.chk(job, 3, t0, &flinkckpttest.Checkpoint{Shared: shared("a", 1)})
		c, _ := e.mustResolve(nil)
		want := job != jobA
		if got := hasWarning(c.Warnings, flinkckpt.WarnFixedJobID, `application mode's fixed job id .*JobResultStore`); got != want {
			t.Errorf("job %s: warning %v, want %v: %q", job, got, want, c.Warnings)
		}
	}
}

// TestEmptyLocation (issue #11): nothing at all under the prefix — a first
// deploy or a mistyped prefix — is ErrEmptyLocation, which wraps
// ErrNoPosition; a prefix holding something else is plain "no position".
func TestEmptyLocation(t *testing.T) {
	e := newEnv(t, "ck/", "s3a://bucket/", nil)
	_, err := e.resolve(nil)
	if !errors.Is(err, flinkckpt.ErrEmptyLocation) || !errors.Is(err, resume.ErrNoPosition) ||
		!strings.Contains(err.Error(), "a first deploy, or a mistyped prefix") || !strings.Contains(err.Error(), `"ck/"`) {
		t.Errorf("err %v", err)
	}
	if err := e.mem.WriteAll(e.ctx, "ck/README", []byte("x"), nil); err != nil {
		t.Fatal(err)
	}
	_, err = e.resolve(nil)
	if !errors.Is(err, resume.ErrNoPosition) || errors.Is(err, flinkckpt.ErrEmptyLocation) {
		t.Errorf("not empty: err %v", err)
	}
}
