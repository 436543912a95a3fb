package flinkckpt_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
)

// Observe watches a location for a snapshot chosen elsewhere: a checkpoint
// appearing during the window means the old job still runs. Wait stands in
// for the window here (a test writes the checkpoint in it).
func ExampleResolver_Observe() {
	ctx := context.Background()
	bucket := memblob.OpenBucket(nil)
	defer bucket.Close()
	l := &flinkckpttest.Layout{Bucket: bucket, Prefix: "ck/", Root: "s3a://state/"}
	job := "5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a"
	l.Checkpoint(ctx, job, 1, nil)
	r, _ := flinkckpt.NewResolver(bucket, "ck/", &flinkckpt.Options{Observe: 10 * time.Second,
		Wait: func(ctx context.Context, d time.Duration) error {
			_, err := l.Checkpoint(ctx, job, 2, nil) // the old job checkpoints meanwhile
			return err
		}})
	_, err := r.Observe(ctx)
	var still *flinkckpt.StillRunningError
	fmt.Println(errors.As(err, &still), still.Appeared)
	// Output:
	// true [ck/5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a/chk-2/]
}

// A canonical savepoint names only relative files: without a Flink root
// Resolve cannot give its -s path, and says which snapshot it would choose.
func ExampleNoFlinkPathError() {
	ctx := context.Background()
	bucket := memblob.OpenBucket(nil)
	defer bucket.Close()
	l := &flinkckpttest.Layout{Bucket: bucket, Prefix: "sp/", Root: "s3a://state/"}
	l.Savepoint(ctx, "savepoint-5a5a5a-0123456789ab", 9, &flinkckpttest.Checkpoint{Format: metadata.FormatCanonical})
	r, _ := flinkckpt.NewResolver(bucket, "sp/", nil)
	_, err := r.Resolve(ctx)
	var np *flinkckpt.NoFlinkPathError
	fmt.Println(errors.As(err, &np), np.Key, errors.Is(err, flinkckpt.ErrNoFlinkPath))
	// Output:
	// true sp/savepoint-5a5a5a-0123456789ab/ true
}
