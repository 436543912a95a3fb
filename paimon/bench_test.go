package paimon_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"gocloud.dev/blob"

	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
)

// Benchmark tables, built once per process and only by benchmarks: memblob
// buckets holding wh/default.db/t with n snapshots a minute apart and a
// consumer "job" in the middle.
var (
	benchMu     sync.Mutex
	benchTables = map[int]*benchTable{}
)

type benchTable struct {
	once sync.Once
	b    *blob.Bucket
	path string
}

func benchTableOf(b *testing.B, n int) (*blob.Bucket, string) {
	benchMu.Lock()
	bt := benchTables[n]
	if bt == nil {
		bt = &benchTable{}
		benchTables[n] = bt
	}
	benchMu.Unlock()
	bt.once.Do(func() {
		b.StopTimer()
		defer b.StartTimer()
		mb, tb := newTable(&onceTB{b}, n, map[string]string{"consumer.expiration-time": "7 d"})
		tb.Consumer("job", int64(n/2+1))
		bt.b, bt.path = mb, tb.Path()
	})
	return bt.b, bt.path
}

// onceTB lets a benchmark build a table that outlives it: cleanups are not
// registered (the bucket lives for the process).
type onceTB struct{ testing.TB }

func (onceTB) Cleanup(func()) {}

// BenchmarkTimeSearch compares the binary search (StreamingStartAt) with a
// linear scan of snapshot files from the earliest, on 100,000 snapshots.
func BenchmarkTimeSearch(b *testing.B) {
	const n = 100_000
	mb, path := benchTableOf(b, n)
	// Targets spread over the table; the first is in the middle, so that a
	// one-iteration run of the linear scan is representative.
	target := func(i int) time.Time { return at(1 + (n/2+i*7919)%n).Add(30 * time.Second) }
	b.Run("binary", func(b *testing.B) {
		wb, rec := blobtest.Wrap(mb, nil)
		tbl := openTable(b, wb, path, nil)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := tbl.StreamingStartAt(bg, target(i)); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(rec.Count(blobtest.OpRead))/float64(b.N), "reads/op")
		b.ReportMetric(float64(rec.Count(blobtest.OpList))/float64(b.N), "lists/op")
	})
	b.Run("linear", func(b *testing.B) {
		wb, rec := blobtest.Wrap(mb, nil)
		tbl := openTable(b, wb, path, nil)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			ms := target(i).UnixMilli()
			e, err := tbl.EarliestSnapshotID(bg)
			if err != nil {
				b.Fatal(err)
			}
			for id := e; ; id++ {
				s, err := tbl.Snapshot(bg, id)
				if err != nil {
					b.Fatal(err)
				}
				if s.TimeMillis >= ms {
					break
				}
			}
		}
		b.ReportMetric(float64(rec.Count(blobtest.OpRead))/float64(b.N), "reads/op")
		b.ReportMetric(float64(rec.Count(blobtest.OpList))/float64(b.N), "lists/op")
	})
}

// BenchmarkConsumerResolve shows a consumer resolve costs the same from 100
// to 100,000 snapshots (correct hints: no listing, at most 6 reads).
func BenchmarkConsumerResolve(b *testing.B) {
	for _, n := range []int{100, 1_000, 10_000, 100_000} {
		b.Run(fmt.Sprintf("snapshots=%d", n), func(b *testing.B) {
			mb, path := benchTableOf(b, n)
			wb, rec := blobtest.Wrap(mb, nil)
			// The job stopped just after reading snapshot n/2 (memblob
			// would stamp the consumer file "now").
			rec.SetModTime(path+"consumer/consumer-job", at(n/2).Add(30*time.Second))
			tbl := openTable(b, wb, path, nil)
			r, err := paimon.NewResolver(tbl, "job", nil)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := r.Resolve(bg); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(rec.Count(blobtest.OpRead))/float64(b.N), "reads/op")
			b.ReportMetric(float64(rec.Count(blobtest.OpList))/float64(b.N), "lists/op")
			b.ReportMetric(float64(rec.Count(blobtest.OpAttributes))/float64(b.N), "attrs/op")
		})
	}
}

// BenchmarkStaleHintResolve: a stale LATEST hint costs one listing
// (ceil(n/1000) pages). memblob sorts every key of the bucket for each page it
// lists, so a listing of n keys costs O(n²/1000 log n) there, unlike a real
// store; the benchmark stops at 10,000 snapshots to keep that distortion small.
func BenchmarkStaleHintResolve(b *testing.B) {
	for _, n := range []int{1_000, 10_000} {
		b.Run(fmt.Sprintf("snapshots=%d", n), func(b *testing.B) { benchStale(b, n) })
	}
}

func benchStale(b *testing.B, n int) {
	mb, path := benchTableOf(b, n)
	// A view of the same bucket whose LATEST hint reads as stale.
	wb, rec := blobtest.Wrap(mb, &blobtest.Options{Transform: func(c blobtest.Call, data []byte) []byte {
		if c.Key == path+"snapshot/LATEST" {
			return []byte("5")
		}
		return data
	}})
	rec.SetModTime(path+"consumer/consumer-job", at(n/2).Add(30*time.Second))
	tbl := openTable(b, wb, path, nil)
	r, _ := paimon.NewResolver(tbl, "job", nil)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := r.Resolve(bg); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(rec.Count(blobtest.OpRead))/float64(b.N), "reads/op")
	b.ReportMetric(float64(rec.Count(blobtest.OpList))/float64(b.N), "lists/op")
	b.ReportMetric(float64(rec.Listed())/float64(b.N), "listed/op")
}
