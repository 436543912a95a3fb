package flinkckpt_test

import (
	"context"
	"errors"
	"fmt"

	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/jobgraph"
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

// Two applications checkpoint into one cluster-wide root. Unless the job
// is identified, Resolve lists them instead of choosing the newest; the
// operators of a snapshot of the job (the savepoint it last started from)
// identify it.
func ExampleOptions_anchor() {
	ctx := context.Background()
	bucket := memblob.OpenBucket(nil)
	defer bucket.Close()
	l := &flinkckpttest.Layout{Bucket: bucket, Prefix: "ck/", Root: "s3a://cluster/"}
	orders := []string{jobgraph.OperatorID("orders-source"), jobgraph.OperatorID("orders-sink")}
	payments := []string{jobgraph.OperatorID("payments-source"), jobgraph.OperatorID("payments-sink")}
	l.Checkpoint(ctx, "6f1ec5b2a4d34d0c9b1f2a3b4c5d6e7f", 41, &flinkckpttest.Checkpoint{OperatorIDs: orders, Shared: []string{"a.sst"}})
	l.Checkpoint(ctx, "0a1b2c3d4e5f60718293a4b5c6d7e8f9", 7, &flinkckpttest.Checkpoint{OperatorIDs: payments, Shared: []string{"b.sst"}})

	r, _ := flinkckpt.NewResolver(bucket, "ck/", nil)
	_, err := r.Resolve(ctx)
	var apps *flinkckpt.ApplicationsError
	if errors.As(err, &apps) {
		fmt.Println(len(apps.Applications), "applications")
	}

	lastSavepoint := (&flinkckpttest.Spec{Version: 4, OperatorIDs: orders}).Metadata() // e.g. flinkckpt.Inspect(…).Metadata
	r, _ = flinkckpt.NewResolver(bucket, "ck/", &flinkckpt.Options{Anchor: jobgraph.JobOfCheckpoint(lastSavepoint)})
	c, err := r.Resolve(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.Position)
	// Output:
	// 2 applications
	// chk-41 of job 6f1ec5b2a4d34d0c9b1f2a3b4c5d6e7f
}

// A checkpoint of the changelog state backend restores in CLAIM mode (its
// backend cannot take the full first checkpoint NO_CLAIM forces); the
// Flink version picks the run line's flag.
func ExampleClaimMode() {
	ctx := context.Background()
	bucket := memblob.OpenBucket(nil)
	defer bucket.Close()
	l := &flinkckpttest.Layout{Bucket: bucket, Prefix: "ck/", Root: "s3a://bucket/"}
	l.Checkpoint(ctx, "6f1ec5b2a4d34d0c9b1f2a3b4c5d6e7f", 8, &flinkckpttest.Checkpoint{Shared: []string{"a.sst"}, StateBackend: "changelog"})

	r, _ := flinkckpt.NewResolver(bucket, "ck/", &flinkckpt.Options{FlinkVersion: "1.20"})
	c, err := r.Resolve(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	launch := c.Position.Launch()
	fmt.Println(launch.Args)
	fmt.Println(launch.Config["execution.state-recovery.claim-mode"], launch.Config["execution.savepoint-restore-mode"])
	fmt.Println(c.Warnings[len(c.Warnings)-1].Code)
	// Output:
	// [-s s3a://bucket/ck/6f1ec5b2a4d34d0c9b1f2a3b4c5d6e7f/chk-8 -claimMode CLAIM]
	// CLAIM CLAIM
	// flink.owned-by-new-job
}

// The checkpoint root and the savepoint dir read as one: the savepoint was
// written last (its modification time is the newest), but it is the job's
// at a lower checkpoint id, so the job's checkpoint outranks it.
func ExampleLocation() {
	ctx := context.Background()
	bucket := memblob.OpenBucket(nil)
	defer bucket.Close()
	job := "6f1ec5b2a4d34d0c9b1f2a3b4c5d6e7f"
	ck := &flinkckpttest.Layout{Bucket: bucket, Prefix: "checkpoints/", Root: "s3a://bucket/"}
	ck.Checkpoint(ctx, job, 41, &flinkckpttest.Checkpoint{Shared: []string{"000012.sst"}})
	sp := &flinkckpttest.Layout{Bucket: bucket, Prefix: "savepoints/", Root: "s3a://bucket/"}
	sp.Savepoint(ctx, flinkckpttest.SavepointName(job, 1), 12, nil)

	r, err := flinkckpt.NewResolver(bucket, "checkpoints/", &flinkckpt.Options{
		FlinkRoot: "s3a://bucket/",
		Locations: []flinkckpt.Location{{Bucket: bucket, Prefix: "savepoints/", FlinkRoot: "s3a://bucket/"}},
	})
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
	fmt.Println(c.Reasons[len(c.Reasons)-1])
	// Output:
	// chk-41 of job 6f1ec5b2a4d34d0c9b1f2a3b4c5d6e7f
	// ranks above savepoint-6f1ec5-47abb057c2e6: that is a savepoint of the same job at a lower checkpoint id (12 vs 41), and within one job the id order decides, whatever the modification times say
}

// Position.Considered lists what the resolver passed over on its way to
// the chosen snapshot, with each one's state: what a report or a timeline
// draws.
func ExamplePosition_considered() {
	ctx := context.Background()
	bucket := memblob.OpenBucket(nil)
	defer bucket.Close()
	l := &flinkckpttest.Layout{Bucket: bucket, Prefix: "ck/", Root: "s3a://bucket/"}
	job := "6f1ec5b2a4d34d0c9b1f2a3b4c5d6e7f"
	l.Checkpoint(ctx, job, 41, &flinkckpttest.Checkpoint{Shared: []string{"000012.sst"}})
	w, _ := l.Checkpoint(ctx, job, 42, &flinkckpttest.Checkpoint{Shared: []string{"000013.sst"}})
	bucket.Delete(ctx, w.Files[len(w.Files)-1]) // a file chk-42 needs
	l.Checkpoint(ctx, job, 43, &flinkckpttest.Checkpoint{Incomplete: true})

	r, _ := flinkckpt.NewResolver(bucket, "ck/", nil)
	c, err := r.Resolve(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	p, _ := flinkckpt.PositionOf(c.Position)
	fmt.Println("chosen:", p)
	for _, s := range p.Considered {
		fmt.Printf("%s: %s\n", s.Name, s.Outcome)
	}
	// Output:
	// chosen: chk-41 of job 6f1ec5b2a4d34d0c9b1f2a3b4c5d6e7f
	// chk-43 of job 6f1ec5b2a4d34d0c9b1f2a3b4c5d6e7f: incomplete
	// chk-42 of job 6f1ec5b2a4d34d0c9b1f2a3b4c5d6e7f: broken
}
