package flinkckpt_test

import (
	"context"
	"testing"
	"time"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/resume/resumetest/s3test"
)

// TestNewestAcrossDirsOverS3 orders two job dirs and a savepoint by their
// _metadata modification times as a real S3 endpoint reports them, set
// with the server's clock: the savepoint stamped last wins, though it was
// written first and its checkpoint id is the lowest. (It is a savepoint of
// a third job, with no job dir here: within one job's lineage the
// checkpoint id would decide instead.)
func TestNewestAcrossDirsOverS3(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := s3test.NewServer(t)
	b := srv.Bucket(t, "ckpt")
	l := &flinkckpttest.Layout{Bucket: b, Prefix: "prod/", Root: "s3a://ckpt/"}
	write := func(at time.Time, f func() (*flinkckpttest.Written, error)) {
		t.Helper()
		srv.SetTime(at)
		if _, err := f(); err != nil {
			t.Fatal(err)
		}
	}
	// Written in the opposite order of their stamped times: the wall clock
	// alone would make job B's checkpoint the newest.
	write(t0.Add(2*time.Hour), func() (*flinkckpttest.Written, error) {
		return l.Savepoint(ctx, flinkckpttest.SavepointName("cccccccccccccccccccccccccccccc03", 1), 5, nil)
	})
	write(t0, func() (*flinkckpttest.Written, error) { return l.Checkpoint(ctx, jobA, 30, nil) })
	write(t0.Add(time.Hour), func() (*flinkckpttest.Written, error) { return l.Checkpoint(ctx, jobB, 20, nil) })
	r, err := flinkckpt.NewResolver(b, "prod/", &flinkckpt.Options{FlinkRoot: "s3a://ckpt/"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.Resolve(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := flinkckpt.PositionOf(c.Position)
	if !p.Savepoint || p.CheckpointID != 5 || !c.At.Equal(t0.Add(2*time.Hour)) {
		t.Errorf("chose %+v at %v, want the savepoint written at %v", p, c.At, t0.Add(2*time.Hour))
	}
}
