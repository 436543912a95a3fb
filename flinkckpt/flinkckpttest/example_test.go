package flinkckpttest_test

import (
	"context"
	"fmt"

	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
)

// A restart test lays out what storage looks like after a crash — a
// retained checkpoint, a newer one whose shared file was deleted, one in
// progress — and checks what the deploy tool would restore.
func ExampleLayout() {
	ctx := context.Background()
	bucket := memblob.OpenBucket(nil)
	defer bucket.Close()
	l := &flinkckpttest.Layout{Bucket: bucket, Prefix: "checkpoints/", Root: "s3a://prod-state/"}
	job := "00000000000000000000000000000000"
	l.Checkpoint(ctx, job, 7, &flinkckpttest.Checkpoint{Shared: []string{"a.sst", "b.sst"}})
	w, _ := l.Checkpoint(ctx, job, 8, &flinkckpttest.Checkpoint{Shared: []string{"a.sst", "c.sst"}})
	bucket.Delete(ctx, l.JobDir(job)+"shared/c.sst") // removed by a CLAIM-mode restore elsewhere
	l.Checkpoint(ctx, job, 9, &flinkckpttest.Checkpoint{Incomplete: true})

	fmt.Println(w.FlinkPath)
	snaps, _ := flinkckpt.List(ctx, bucket, l.Prefix, &flinkckpt.Options{FlinkRoot: l.FlinkRoot()})
	for _, s := range snaps {
		fmt.Println(s.CheckpointID, s.State)
	}
	// Output:
	// s3a://prod-state/checkpoints/00000000000000000000000000000000/chk-8
	// 9 incomplete
	// 8 broken
	// 7 complete
}

// Encode writes the bytes of a _metadata file from a Metadata value.
func ExampleEncode() {
	md := (&flinkckpttest.Spec{Version: 6, CheckpointID: 12, Operators: 1, Relative: []string{"state"}, FileSize: 3}).Metadata()
	data, _ := flinkckpttest.Encode(md)
	back, _ := metadata.Parse(data, nil)
	fmt.Println(len(data), back.Version, back.CheckpointID, back.Files[0].Path)
	// Output:
	// 488 6 12 state
}

// Flink writes a path without an authority as Path.toString() spells it:
// a Layout with PathString writes references the same way.
func ExamplePathString() {
	fmt.Println(flinkckpttest.PathString("file:///data/ck/job/shared/a.sst"))
	fmt.Println(flinkckpttest.PathString("hdfs:///flink/ck"))
	fmt.Println(flinkckpttest.PathString("hdfs://ns/flink/ck"))
	// Output:
	// file:/data/ck/job/shared/a.sst
	// hdfs:/flink/ck
	// hdfs://ns/flink/ck
}

// A changelog backend's checkpoint keeps its recent changes in DSTL files
// under state.changelog.dstl.dfs.base-path, here another bucket: the
// resolver infers the root from the materialized files alone and checks
// the DSTL files through an extra root.
func ExampleDSTL() {
	ctx := context.Background()
	bucket, dstl := memblob.OpenBucket(nil), memblob.OpenBucket(nil)
	defer bucket.Close()
	defer dstl.Close()
	l := &flinkckpttest.Layout{Bucket: bucket, Prefix: "ck/", Root: "s3a://state/"}
	job := "5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a"
	l.Checkpoint(ctx, job, 3, &flinkckpttest.Checkpoint{Shared: []string{"a.sst"},
		DSTL: &flinkckpttest.DSTL{Base: "s3a://changelog/dstl", Files: 4, Bucket: dstl, Key: "dstl/"}})
	fmt.Println(flinkckpttest.DSTLFile("s3a://changelog/dstl", job, 3, 0))
	snaps, _ := flinkckpt.List(ctx, bucket, l.Prefix, &flinkckpt.Options{
		ExtraRoots: []flinkckpt.ExtraRoot{{FlinkRoot: "s3a://changelog/dstl", Bucket: dstl, Prefix: "dstl/"}}})
	fmt.Println(snaps[0].Path, snaps[0].State, len(snaps[0].Verification.Files))
	// Output:
	// s3a://changelog/dstl/5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a/dstl/866d928d-f929-709a-9e86-989f11b473ef
	// s3a://state/ck/5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a/chk-3 complete 6
}
