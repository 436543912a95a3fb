package flinkckpt_test

import (
	"context"
	"errors"
	"testing"

	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/resume"
)

// TestEveryCompletedSnapshotBrokenIsNotNothingToRestore: a root whose
// completed checkpoints all reference missing files held the job's state,
// and it is lost: the resolver's error wraps ErrBroken and a chain that
// chooses nothing classifies it as refused (exit 4), never as nothing to
// restore (exit 3, which a deploy script reads as a first deploy and starts
// the job empty). A root of in-progress checkpoints only is still nothing
// to restore. (Conformance F12's "segment-file-deleted" stage is this on
// real Flink: every checkpoint's merged file deleted.)
func TestEveryCompletedSnapshotBrokenIsNotNothingToRestore(t *testing.T) {
	ctx := context.Background()
	const job = "6f1ec5b2a4d34d0c9b1f2a3b4c5d6e7f"
	for _, tc := range []struct {
		name       string
		checkpoint func(l *flinkckpttest.Layout)
		broken     bool
		want       resume.Result
	}{
		{"AllBroken", func(l *flinkckpttest.Layout) {
			l.Checkpoint(ctx, job, 7, &flinkckpttest.Checkpoint{SkipFiles: true})
			l.Checkpoint(ctx, job, 8, &flinkckpttest.Checkpoint{SkipFiles: true})
		}, true, resume.ResultRefused},
		{"BrokenBelowInProgress", func(l *flinkckpttest.Layout) {
			l.Checkpoint(ctx, job, 7, &flinkckpttest.Checkpoint{SkipFiles: true})
			l.Checkpoint(ctx, job, 8, &flinkckpttest.Checkpoint{Incomplete: true})
		}, true, resume.ResultRefused},
		{"OnlyInProgress", func(l *flinkckpttest.Layout) {
			l.Checkpoint(ctx, job, 1, &flinkckpttest.Checkpoint{Incomplete: true})
		}, false, resume.ResultNothingToRestore},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := memblob.OpenBucket(nil)
			defer b.Close()
			tc.checkpoint(&flinkckpttest.Layout{Bucket: b, Prefix: "ck/", Root: "s3a://bucket/"})
			r, err := flinkckpt.NewResolver(b, "ck/", &flinkckpt.Options{FlinkRoot: "s3a://bucket/ck"})
			if err != nil {
				t.Fatal(err)
			}
			_, rerr := r.Resolve(ctx)
			if !errors.Is(rerr, resume.ErrNoPosition) {
				t.Fatalf("Resolve: %v, want a no-position error (other sources may still answer)", rerr)
			}
			if errors.Is(rerr, flinkckpt.ErrBroken) != tc.broken {
				t.Errorf("errors.Is(%v, ErrBroken) = %v, want %v", rerr, !tc.broken, tc.broken)
			}
			c := &resume.Chain{Resolvers: []resume.Resolver{r}}
			d, err := c.Resolve(ctx)
			if got := resume.Classify(d, err); got != tc.want {
				t.Errorf("chain: %v (%v), want %v", got, err, tc.want)
			}
			if tc.broken && (errors.Is(err, resume.ErrNoPosition) || !errors.Is(err, resume.ErrRefused) || !errors.Is(err, flinkckpt.ErrBroken)) {
				t.Errorf("chain error %v: want ErrRefused and flinkckpt.ErrBroken, not ErrNoPosition", err)
			}
			if got := resume.Classify(d, err).ExitCode(); tc.broken && got != resume.ExitRefused {
				t.Errorf("exit %d, want %d", got, resume.ExitRefused)
			}
		})
	}
}
