package flinkckpt_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
)

// TestRoundTrips200JobDirs: a root of 200 job dirs, each with an old run
// (chk-98..100) and a newer one (chk-3..4), resolves in one concurrent wave
// per dependency level — root listing, job dir listings, run probes,
// _metadata reads, verification (own dir listing and shared files
// together) — 5 round trips, with the default concurrency bound; with the
// old bound of 64 the same calls take 17. Counts only: the injected latency
// makes calls that wait for one another fall into separate waves (100 ms,
// longer than a loaded machine's scheduling delays, so that calls started
// together are never counted apart).
func TestRoundTrips200JobDirs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 1,000 checkpoints")
	}
	ctx := context.Background()
	inner := openSortedBucket()
	defer inner.Close()
	l := &flinkckpttest.Layout{Bucket: inner, Prefix: "ck/", Root: "s3a://bucket/"}
	const jobs = 200
	ids := []int64{98, 99, 100, 3, 4}
	for j := 0; j < jobs; j++ {
		for _, id := range ids {
			if _, err := l.Checkpoint(ctx, fmt.Sprintf("%032x", j+1), id, &flinkckpttest.Checkpoint{Operators: 1, FileSize: 4,
				Shared: []string{fmt.Sprintf("s-%d", id)}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	warm(inner)
	type counts struct{ Waves, Lists, Reads, Attributes, MaxInFlight int }
	for _, tc := range []struct {
		name        string
		concurrency int
		want        counts
	}{
		// 1 root + 200 job dirs + the chosen chk dir; 400 run probes + 1
		// shared file; 200 heads read.
		{"Default", 0, counts{Waves: 5, Lists: 202, Reads: 200, Attributes: 401, MaxInFlight: 400}},
		// 200 lists in 4 waves of 64, 400 probes in 7, 200 reads in 4.
		{"Bound64", 64, counts{Waves: 1 + 4 + 7 + 4 + 1, Lists: 202, Reads: 200, Attributes: 401, MaxInFlight: 64}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bk, rec := blobtest.Wrap(inner, &blobtest.Options{Latency: 100 * time.Millisecond})
			defer bk.Close()
			for j := 0; j < jobs; j++ {
				for i, id := range ids {
					rec.SetModTime(fmt.Sprintf("ck/%032x/chk-%d/_metadata", j+1, id), t0.Add(time.Duration(i)*time.Minute+time.Duration(j)*time.Second))
				}
			}
			r, err := flinkckpt.NewResolver(bk, "ck/", &flinkckpt.Options{Concurrency: tc.concurrency})
			if err != nil {
				t.Fatal(err)
			}
			c, err := r.Resolve(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if p, _ := flinkckpt.PositionOf(c.Position); p.CheckpointID != 4 || p.JobID != fmt.Sprintf("%032x", jobs) {
				t.Fatalf("chose %s, want chk-4 of the last job", c.Position)
			}
			got := counts{rec.Waves(), rec.Count(blobtest.OpList), rec.Count(blobtest.OpRead), rec.Count(blobtest.OpAttributes), rec.MaxInFlight()}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("round trips and calls (-want +got):\n%s\n%s", diff, rec)
			}
		})
	}
}
