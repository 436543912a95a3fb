package flinkckpt_test

import (
	"context"
	"fmt"

	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
)

// A job's newest checkpoint is still in progress (no _metadata): the
// resolver falls back to the one before and says why.
func ExampleResolver() {
	ctx := context.Background()
	bucket := memblob.OpenBucket(nil)
	defer bucket.Close()
	l := &flinkckpttest.Layout{Bucket: bucket, Prefix: "ck/", Root: "s3a://bucket/"}
	job := "6f1ec5b2a4d34d0c9b1f2a3b4c5d6e7f"
	l.Checkpoint(ctx, job, 41, &flinkckpttest.Checkpoint{Shared: []string{"000012.sst"}})
	l.Checkpoint(ctx, job, 42, &flinkckpttest.Checkpoint{Incomplete: true})

	r, err := flinkckpt.NewResolver(bucket, "ck/", nil) // Flink root inferred from the shared files' paths
	if err != nil {
		fmt.Println(err)
		return
	}
	c, err := r.Resolve(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.Position)
	fmt.Println(c.Guarantee)
	fmt.Println(c.Position.Launch().Args)
	fmt.Println(c.Reasons[0])
	// Output:
	// chk-41 of job 6f1ec5b2a4d34d0c9b1f2a3b4c5d6e7f
	// exactly-once
	// [-s s3a://bucket/ck/6f1ec5b2a4d34d0c9b1f2a3b4c5d6e7f/chk-41]
	// chk-42 of job 6f1ec5b2a4d34d0c9b1f2a3b4c5d6e7f: no _metadata (in progress, failed or being deleted)
}

// List reports every checkpoint with its state.
func ExampleList() {
	ctx := context.Background()
	bucket := memblob.OpenBucket(nil)
	defer bucket.Close()
	l := &flinkckpttest.Layout{Bucket: bucket, Prefix: "", Root: "hdfs://ns/flink/ck/"}
	job := "00000000000000000000000000000000"
	l.Checkpoint(ctx, job, 1, nil)
	l.Checkpoint(ctx, job, 2, &flinkckpttest.Checkpoint{SkipFiles: true})
	l.Checkpoint(ctx, job, 3, &flinkckpttest.Checkpoint{Incomplete: true})

	snaps, err := flinkckpt.List(ctx, bucket, "", &flinkckpt.Options{FlinkRoot: "hdfs://ns/flink/ck/"})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range snaps {
		fmt.Printf("chk-%d %s: %s\n", s.CheckpointID, s.State, s.Reason)
	}
	// Output:
	// chk-3 incomplete: no _metadata (in progress, failed or being deleted)
	// chk-2 broken: 1 of 1 referenced files missing, first: 00000000000000000000000000000000/chk-2/00000002-exclusive-0
	// chk-1 complete: _metadata version 4, 2 operators, 1 referenced files exist with their recorded sizes
}
