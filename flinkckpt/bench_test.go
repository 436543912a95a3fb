package flinkckpt_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/resumekit/resumekit/flinkckpt/internal/fixtures"
	"github.com/resumekit/resumekit/flinkckpt/internal/localroot"
	"github.com/resumekit/resumekit/flinkckpt/metadata"

	"gocloud.dev/blob"
	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
)

// Large layouts are built once per process, and only by benchmarks.
var (
	synthOnce sync.Once
	synthData []byte
)

// synthetic50MB is a _metadata of about 50 MB: one incremental RocksDB
// handle with ~560,000 shared files referenced by absolute path.
func synthetic50MB(b *testing.B) []byte {
	synthOnce.Do(func() {
		spec := &flinkckpttest.Spec{Version: 4, CheckpointID: 77, Operators: 4, FileSize: 1 << 20}
		for i := 0; len(spec.Absolute) < 560000; i++ {
			spec.Absolute = append(spec.Absolute, fmt.Sprintf("s3a://bucket/checkpoints/0123456789abcdef0123456789abcdef/shared/%08d-sst", i))
		}
		data, err := flinkckpttest.Encode(spec.Metadata())
		if err != nil {
			panic(err)
		}
		synthData = data
	})
	return synthData
}

// BenchmarkParseSynthetic50MB parses a 50 MB _metadata; alloc-ratio is
// bytes allocated per byte parsed.
func BenchmarkParseSynthetic50MB(b *testing.B) {
	data := synthetic50MB(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var ms0, ms1 runtimeMem
	ms0.read()
	n := 0
	for b.Loop() {
		md, err := metadata.Parse(data, nil)
		if err != nil || len(md.Files) < 560000 {
			b.Fatal(err)
		}
		n++
	}
	ms1.read()
	b.ReportMetric(float64(ms1.alloc-ms0.alloc)/float64(n)/float64(len(data)), "alloc-bytes/byte")
	b.ReportMetric(float64(len(data))/1e6, "file-MB")
}

// ---- resolve vs the naive full listing --------------------------------

const (
	benchJob    = localroot.Job // the job dir localroot.Write writes
	benchChks   = 10000
	benchShared = 100000
)

var (
	bigOnce   = map[string]*sync.Once{"sorted": {}, "memblob": {}}
	bigBucket = map[string]*blob.Bucket{}
)

// bigLayout is one job dir with 10,000 complete chk-<n> dirs (each a
// _metadata and one exclusive file, referencing 10 shared files) and
// 100,000 files in shared/: 120,000 objects.
func bigLayout(b *testing.B, kind string) *blob.Bucket {
	bigOnce[kind].Do(func() {
		var bk *blob.Bucket
		if kind == "memblob" {
			bk = memblob.OpenBucket(nil)
		} else {
			bk = openSortedBucket()
		}
		ctx := context.Background()
		l := &flinkckpttest.Layout{Bucket: bk, Prefix: "ck/", Root: "s3a://bucket/"}
		for i := 0; i < benchChks; i++ {
			names := make([]string, 10)
			for k := range names {
				names[k] = fmt.Sprintf("%06d.sst", i*10+k)
			}
			if _, err := l.Checkpoint(ctx, benchJob, int64(i+1), &flinkckpttest.Checkpoint{Shared: names, Operators: 1, FileSize: 4}); err != nil {
				panic(err)
			}
		}
		warm(bk)
		bigBucket[kind] = bk
	})
	return bigBucket[kind]
}

// warm lists one entry so that sortedBucket sorts its keys before timing.
func warm(bk *blob.Bucket) {
	if _, _, err := bk.ListPage(context.Background(), blob.FirstPageToken, 1, nil); err != nil {
		panic(err)
	}
}

// naiveNewest is what `aws s3 ls --recursive | grep _metadata | sort | tail -1`
// does: list every key under prefix, keep the _metadata keys, take the
// highest chk-<n>, read and parse it.
func naiveNewest(ctx context.Context, b *blob.Bucket, prefix string) (*metadata.Checkpoint, error) {
	best, bestKey := int64(-1), ""
	it := b.List(&blob.ListOptions{Prefix: prefix})
	for {
		o, err := it.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if !strings.HasSuffix(o.Key, "/_metadata") {
			continue
		}
		dir := filepath.Base(filepath.Dir(o.Key))
		if id, err := strconv.ParseInt(strings.TrimPrefix(dir, "chk-"), 10, 64); err == nil && id > best {
			best, bestKey = id, o.Key
		}
	}
	r, err := b.NewReader(ctx, bestKey, nil)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return metadata.Read(r, nil)
}

// BenchmarkResolveVsNaive10k resolves (with verification) the
// 10,000-checkpoint job dir and, in the same iteration, runs the naive full
// listing; it reports both times, listed entries and list pages, and their
// ratios. "sorted" lists at a cost proportional to the page, as object stores
// do; "memblob" sorts all 120,000 keys on every page (see sortedBucket).
func BenchmarkResolveVsNaive10k(b *testing.B) {
	for _, kind := range []string{"sorted", "memblob"} {
		b.Run(kind, func(b *testing.B) {
			inner := bigLayout(b, kind)
			bk, rec := blobtest.Wrap(inner, nil)
			defer bk.Close()
			ctx := context.Background()
			r, err := flinkckpt.NewResolver(bk, "ck/", nil)
			if err != nil {
				b.Fatal(err)
			}
			var tFlink, tNaive time.Duration
			var lFlink, lNaive, pFlink, pNaive, calls int
			n := 0
			for b.Loop() {
				rec.Reset()
				runtime.GC() // each side starts from a collected heap
				start := time.Now()
				c, err := r.Resolve(ctx)
				tFlink += time.Since(start)
				if err != nil {
					b.Fatal(err)
				}
				if p, _ := flinkckpt.PositionOf(c.Position); p.CheckpointID != benchChks {
					b.Fatalf("chose %d", p.CheckpointID)
				}
				lFlink += rec.Listed()
				pFlink += rec.Count(blobtest.OpList)
				calls += rec.Total()
				rec.Reset()
				runtime.GC()
				start = time.Now()
				md, err := naiveNewest(ctx, bk, "ck/")
				tNaive += time.Since(start)
				if err != nil || md.CheckpointID != benchChks {
					b.Fatal(err)
				}
				lNaive += rec.Listed()
				pNaive += rec.Count(blobtest.OpList)
				n++
			}
			f := float64(n)
			b.ReportMetric(float64(tFlink.Nanoseconds())/f, "flink-ns/op")
			b.ReportMetric(float64(tNaive.Nanoseconds())/f, "naive-ns/op")
			b.ReportMetric(float64(tNaive)/float64(tFlink), "time-ratio")
			b.ReportMetric(float64(lFlink)/f, "flink-listed/op")
			b.ReportMetric(float64(lNaive)/f, "naive-listed/op")
			b.ReportMetric(float64(lNaive)/float64(lFlink), "listed-ratio")
			b.ReportMetric(float64(pFlink)/f, "flink-pages/op")
			b.ReportMetric(float64(pNaive)/f, "naive-pages/op")
			b.ReportMetric(float64(calls)/f, "flink-calls/op")
		})
	}
}

// ---- latency --------------------------------------------------------------

var (
	manyJobsOnce   sync.Once
	manyJobsBucket *blob.Bucket
)

// manyJobs is 200 job dirs × 50 complete checkpoints (each referencing 2
// shared files and 1 exclusive file).
func manyJobs() *blob.Bucket {
	manyJobsOnce.Do(func() {
		bk := openSortedBucket()
		ctx := context.Background()
		l := &flinkckpttest.Layout{Bucket: bk, Prefix: "ck/", Root: "s3a://bucket/"}
		for j := 0; j < 200; j++ {
			job := fmt.Sprintf("%032x", j+1)
			for i := 1; i <= 50; i++ {
				if _, err := l.Checkpoint(ctx, job, int64(i), &flinkckpttest.Checkpoint{Operators: 1, FileSize: 4,
					Shared: []string{fmt.Sprintf("s-%d-a", i), fmt.Sprintf("s-%d-b", i)}}); err != nil {
					panic(err)
				}
			}
		}
		warm(bk)
		manyJobsBucket = bk
	})
	return manyJobsBucket
}

// Benchmark200JobDirs20ms resolves a root of 200 job dirs × 50 checkpoints
// with 20 ms added to every storage call (target: under 2 s).
func Benchmark200JobDirs20ms(b *testing.B) {
	bk, rec := blobtest.Wrap(manyJobs(), &blobtest.Options{Latency: 20 * time.Millisecond})
	defer bk.Close()
	r, _ := flinkckpt.NewResolver(bk, "ck/", nil)
	ctx := context.Background()
	n := 0
	rec.Reset()
	for b.Loop() {
		if _, err := r.Resolve(ctx); err != nil {
			b.Fatal(err)
		}
		n++
	}
	reportCalls(b, rec, n)
}

var (
	verifyOnce   sync.Once
	verifyBucket *blob.Bucket
)

// BenchmarkVerify2000Shared20ms resolves one checkpoint referencing 2,000
// shared files (among 20,000 in shared/) with 20 ms per call (target: under
// 1 s with bounded concurrency).
func BenchmarkVerify2000Shared20ms(b *testing.B) {
	verifyOnce.Do(func() {
		bk := openSortedBucket()
		ctx := context.Background()
		for i := 0; i < 20000; i++ {
			if err := bk.WriteAll(ctx, fmt.Sprintf("ck/%s/shared/%06d.sst", benchJob, i), make([]byte, 4), nil); err != nil {
				panic(err)
			}
		}
		l := &flinkckpttest.Layout{Bucket: bk, Prefix: "ck/", Root: "s3a://bucket/"}
		var names []string
		for i := 0; i < 2000; i++ {
			names = append(names, fmt.Sprintf("%06d.sst", i*10))
		}
		if _, err := l.Checkpoint(ctx, benchJob, 1, &flinkckpttest.Checkpoint{Shared: names, FileSize: 4, Exclusive: 3}); err != nil {
			panic(err)
		}
		warm(bk)
		verifyBucket = bk
	})
	bk, rec := blobtest.Wrap(verifyBucket, &blobtest.Options{Latency: 20 * time.Millisecond})
	defer bk.Close()
	r, _ := flinkckpt.NewResolver(bk, "ck/", nil)
	ctx := context.Background()
	n := 0
	for b.Loop() {
		if _, err := r.Resolve(ctx); err != nil {
			b.Fatal(err)
		}
		n++
	}
	f := float64(n)
	b.ReportMetric(float64(rec.Count(blobtest.OpList))/f, "lists/op")
	b.ReportMetric(float64(rec.Count(blobtest.OpAttributes))/f, "attrs/op")
	b.ReportMetric(float64(rec.Waves())/f, "waves/op")
	b.ReportMetric(float64(rec.MaxInFlight()), "max-in-flight")
}

// BenchmarkVerifyFixture122Refs inspects the Flink 1.17 incremental
// checkpoint fixture (122 relative references) copied into memory: the
// calls are one read and one listing of the checkpoint dir.
func BenchmarkVerifyFixture122Refs(b *testing.B) {
	dir := filepath.Join(fixtures.Dir(b), "v4-flink1.17-rocksdb-incremental-checkpoint")
	mem := memblob.OpenBucket(nil)
	defer mem.Close()
	ctx := context.Background()
	entries, err := os.ReadDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			b.Fatal(err)
		}
		if err := mem.WriteAll(ctx, "chk-1/"+e.Name(), data, nil); err != nil {
			b.Fatal(err)
		}
	}
	bk, rec := blobtest.Wrap(mem, nil)
	defer bk.Close()
	n, refs, files := 0, 0, 0
	for b.Loop() {
		s, err := flinkckpt.Inspect(ctx, bk, "chk-1/", nil)
		if err != nil {
			b.Fatal(err)
		}
		refs, files = len(s.Metadata.Files), len(s.Verification.Files)
		n++
	}
	f := float64(n)
	b.ReportMetric(float64(refs), "refs")
	b.ReportMetric(float64(files), "distinct-files")
	b.ReportMetric(float64(rec.Count(blobtest.OpList))/f, "lists/op")
	b.ReportMetric(float64(rec.Count(blobtest.OpRead))/f, "reads/op")
	b.ReportMetric(float64(rec.Count(blobtest.OpAttributes))/f, "attrs/op")
}

// reportCalls reports the storage calls of n resolves per resolve, and the
// most calls in flight at once.
func reportCalls(b *testing.B, rec *blobtest.Recorder, n int) {
	f := float64(n)
	b.ReportMetric(float64(rec.Count(blobtest.OpList))/f, "lists/op")
	b.ReportMetric(float64(rec.Count(blobtest.OpRead))/f, "reads/op")
	b.ReportMetric(float64(rec.Count(blobtest.OpAttributes))/f, "attrs/op")
	b.ReportMetric(float64(rec.MaxInFlight()), "max-in-flight")
	b.ReportMetric(float64(rec.Waves())/f, "waves/op")
}
