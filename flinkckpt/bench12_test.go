package flinkckpt_test

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/jobgraph"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
)

// BenchmarkResolveLargeMetadata280MB resolves a root whose newest
// checkpoint has a 280 MB _metadata (inline union list state over 280
// subtasks) on a local directory: MB/s of the whole resolve, and bytes
// allocated per byte of _metadata (one buffer of its size: ~1).
func BenchmarkResolveLargeMetadata280MB(b *testing.B) {
	const size = 280 << 20
	ctx := context.Background()
	dir := filepath.ToSlash(b.TempDir())
	fb, err := fileblob.OpenBucket(dir, &fileblob.Options{Metadata: fileblob.MetadataDontWrite})
	if err != nil {
		b.Fatal(err)
	}
	defer fb.Close()
	l := &flinkckpttest.Layout{Bucket: fb, Prefix: "ck/", Root: "file://" + dir + "/", PathString: true}
	w, err := l.Checkpoint(ctx, benchJob, 2, &flinkckpttest.Checkpoint{Shared: []string{"a"}, UnionState: size})
	if err != nil {
		b.Fatal(err)
	}
	a, err := fb.Attributes(ctx, w.Dir+"_metadata")
	if err != nil {
		b.Fatal(err)
	}
	r, err := flinkckpt.NewResolver(fb, "ck/", &flinkckpt.Options{FlinkRoot: "file:" + dir + "/ck"})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(a.Size)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	n := 0
	for b.Loop() {
		if _, err := r.Resolve(ctx); err != nil {
			b.Fatal(err)
		}
		n++
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(n)/float64(a.Size), "alloc-ratio")
}

var (
	runsOnce   sync.Once
	runsBucket *blob.Bucket
)

// BenchmarkRestartedRuns200JobDirs20ms resolves a root of 200 job dirs,
// each holding an old run's chk-98..100 and a newer run's chk-3..4 (a gap:
// two runs to order), with 20 ms added to every storage call: the 400 run
// probes go out concurrently.
func BenchmarkRestartedRuns200JobDirs20ms(b *testing.B) {
	runsOnce.Do(func() {
		bk := openSortedBucket()
		ctx := context.Background()
		l := &flinkckpttest.Layout{Bucket: bk, Prefix: "ck/", Root: "s3a://bucket/"}
		for j := 0; j < 200; j++ {
			job := fmt.Sprintf("%032x", j+1)
			for _, id := range []int64{98, 99, 100, 3, 4} {
				if _, err := l.Checkpoint(ctx, job, id, &flinkckpttest.Checkpoint{Operators: 1, FileSize: 4,
					Shared: []string{fmt.Sprintf("s-%d", id)}}); err != nil {
					panic(err)
				}
			}
		}
		warm(bk)
		runsBucket = bk
	})
	bk, rec := blobtest.Wrap(runsBucket, &blobtest.Options{Latency: 20 * time.Millisecond})
	defer bk.Close()
	for j := 0; j < 200; j++ {
		job := fmt.Sprintf("%032x", j+1)
		for i, id := range []int64{98, 99, 100, 3, 4} {
			rec.SetModTime(fmt.Sprintf("ck/%s/chk-%d/_metadata", job, id), t0.Add(time.Duration(i)*time.Minute+time.Duration(j)*time.Second))
		}
	}
	r, _ := flinkckpt.NewResolver(bk, "ck/", nil)
	ctx := context.Background()
	n := 0
	rec.Reset()
	for b.Loop() {
		c, err := r.Resolve(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if p, _ := flinkckpt.PositionOf(c.Position); p.CheckpointID != 4 {
			b.Fatalf("chose %d", p.CheckpointID)
		}
		n++
	}
	reportCalls(b, rec, n)
}

var (
	appsOnce   sync.Once
	appsBucket *blob.Bucket
)

// BenchmarkApplications200JobDirs resolves a root of 200 job dirs whose
// newest checkpoints have 100 operators each, in two applications, with the
// job identified by the new job's operators: the application check's own
// cost (grouping 20,000 operator ids) beside the resolve.
func BenchmarkApplications200JobDirs(b *testing.B) {
	var job *jobgraph.Job
	appsOnce.Do(func() {
		bk := openSortedBucket()
		ctx := context.Background()
		l := &flinkckpttest.Layout{Bucket: bk, Prefix: "ck/", Root: "s3a://bucket/"}
		for j := 0; j < 200; j++ {
			var ops []string
			for i := 0; i < 100; i++ {
				ops = append(ops, jobgraph.OperatorID(fmt.Sprintf("app-%d-op-%d", j%2, i)))
			}
			if _, err := l.Checkpoint(ctx, fmt.Sprintf("%032x", j+1), 1, &flinkckpttest.Checkpoint{OperatorIDs: ops, FileSize: 4, Shared: []string{"s"}}); err != nil {
				panic(err)
			}
		}
		warm(bk)
		appsBucket = bk
	})
	job = &jobgraph.Job{}
	for i := 0; i < 100; i++ {
		job.AddUID(fmt.Sprintf("app-1-op-%d", i))
	}
	r, _ := flinkckpt.NewResolver(appsBucket, "ck/", &flinkckpt.Options{Job: job})
	ctx := context.Background()
	for b.Loop() {
		if _, err := r.Resolve(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
