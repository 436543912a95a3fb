package paimon_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"gocloud.dev/blob"

	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
)

// faultTable is the table of the fault matrix: snapshots 3..20 (1 and 2
// expired), consumer "job" at 10 and a schema with an expiration time.
func faultTable(t *testing.T) (*blob.Bucket, string) {
	b, tb := newTable(t, 20, map[string]string{"consumer.expiration-time": "7 d"})
	tb.ExpireBefore(3).Consumer("job", 10)
	return b, tb.Path()
}

func resolveOn(t *testing.T, b *blob.Bucket, path string, opts *paimon.Options) (resume.Candidate, error) {
	t.Helper()
	tbl := openTable(t, b, path, nil)
	r, err := paimon.NewResolver(tbl, "job", opts)
	if err != nil {
		t.Fatal(err)
	}
	return r.Resolve(bg)
}

// TestFaultMatrix: whatever fails, a resolve either returns the candidate a
// healthy store gives or an error naming what failed — never another
// candidate, never a panic.
func TestFaultMatrix(t *testing.T) {
	b, path := faultTable(t)
	for _, opts := range []*paimon.Options{nil, {StartTime: at(12).Add(time.Second)}} {
		mode := "consumer"
		if opts != nil {
			mode = "by-time"
			paimontestDeleteConsumer(t, b, path)
		}
		want, err := resolveOn(t, b, path, opts)
		if err != nil {
			t.Fatalf("%s: healthy resolve: %v", mode, err)
		}
		wantPos, _ := paimon.PositionOf(want.Position)
		check := func(t *testing.T, c resume.Candidate, err error, rec *blobtest.Recorder) {
			t.Helper()
			if err != nil {
				if !strings.Contains(err.Error(), "paimon: ") || !strings.Contains(err.Error(), path) {
					t.Errorf("error does not name a key: %v", err)
				}
				return
			}
			got, _ := paimon.PositionOf(c.Position)
			if diff := cmp.Diff(wantPos, got); diff != "" || c.Guarantee != want.Guarantee || !c.At.Equal(want.At) {
				t.Errorf("faulty store gave another candidate (-want +got):\n%s%v %v", diff, c.Guarantee, c.At)
			}
		}
		for k := 1; k <= 8; k++ {
			t.Run(fmt.Sprintf("%s/FailEvery%d", mode, k), func(t *testing.T) {
				wb, rec := blobtest.Wrap(b, &blobtest.Options{Fault: blobtest.FailEvery(k)})
				c, err := resolveOn(t, wb, path, opts)
				check(t, c, err, rec)
			})
		}
		for _, key := range []string{"consumer/consumer-job", "snapshot/LATEST", "snapshot/EARLIEST", "snapshot/snapshot-11", "snapshot/snapshot-9", "schema/schema-1", "snapshot/$"} {
			t.Run(mode+"/AlwaysFails/"+key, func(t *testing.T) {
				re := regexp.MustCompile(regexp.QuoteMeta(path) + key)
				wb, rec := blobtest.Wrap(b, &blobtest.Options{Fault: blobtest.FailKeys(re)})
				c, err := resolveOn(t, wb, path, opts)
				check(t, c, err, rec)
				if strings.HasSuffix(key, "LATEST") || strings.HasSuffix(key, "EARLIEST") {
					// A hint that cannot be read counts as missing (Paimon
					// retries, then lists).
					if err != nil {
						t.Errorf("unreadable hint: %v", err)
					}
					if rec.Count(blobtest.OpList) == 0 {
						t.Errorf("no listing after an unreadable hint: %s", rec)
					}
				}
			})
		}
	}
}

func paimontestDeleteConsumer(t *testing.T, b *blob.Bucket, path string) {
	t.Helper()
	if err := b.Delete(bg, path+"consumer/consumer-job"); err != nil {
		t.Fatal(err)
	}
}

// TestChainDecidesFromHealthyResolvers: a failing paimon resolver is a
// failure in the decision, and a healthy resolver at least as strong as what
// it could have offered (exact input) is still chosen. (A weaker one would be
// blocked: paimon.TestMaxGuarantee.)
func TestChainDecidesFromHealthyResolvers(t *testing.T) {
	b, path := faultTable(t)
	wb, _ := blobtest.Wrap(b, &blobtest.Options{Fault: blobtest.FailKeys(regexp.MustCompile(`consumer-job$`))})
	tbl := openTable(t, wb, path, nil)
	r, _ := paimon.NewResolver(tbl, "job", nil)
	healthy := resume.ResolverFunc("healthy", func(context.Context) (resume.Candidate, error) {
		return resume.Candidate{Position: &resume.RawPosition{PositionKind: "test", Summary: "x"}, Guarantee: resume.ExactInput, At: time.Now(), Reasons: []string{"healthy"}}, nil
	})
	chain := &resume.Chain{Resolvers: []resume.Resolver{r, healthy}}
	d, err := chain.Resolve(bg)
	if d.Chosen == nil || d.Chosen.Resolver != "healthy" {
		t.Fatalf("chosen %+v", d.Chosen)
	}
	if err == nil || !strings.Contains(err.Error(), "consumer/consumer-job") {
		t.Errorf("chain error = %v, want the consumer key", err)
	}
}

// TestSlowerThanTimeout: calls slower than the deadline end the resolve
// with an error wrapping context.DeadlineExceeded.
func TestSlowerThanTimeout(t *testing.T) {
	b, path := faultTable(t)
	wb, _ := blobtest.Wrap(b, &blobtest.Options{Latency: time.Hour})
	tbl := openTable(t, wb, path, nil)
	r, _ := paimon.NewResolver(tbl, "job", nil)
	ctx, cancel := context.WithTimeout(bg, 10*time.Millisecond)
	defer cancel()
	if _, err := r.Resolve(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Resolve error = %v, want DeadlineExceeded", err)
	}
}

// TestCancelledContext: a cancelled context makes every operation return an
// error wrapping context.Canceled without further storage calls.
func TestCancelledContext(t *testing.T) {
	b, path := faultTable(t)
	ctx, cancel := context.WithCancel(bg)
	cancel()
	wb, rec := blobtest.Wrap(b, nil)
	tbl := openTable(t, wb, path, nil)
	r, _ := paimon.NewResolver(tbl, "job", nil)
	rt, _ := paimon.NewResolver(tbl, "nobody", &paimon.Options{StartTime: at(5)})
	for name, call := range map[string]func() error{
		"Resolve":         func() error { _, err := r.Resolve(ctx); return err },
		"ResolveByTime":   func() error { _, err := rt.Resolve(ctx); return err },
		"Consumer":        func() error { _, err := tbl.Consumer(ctx, "job"); return err },
		"Consumers":       func() error { _, err := tbl.Consumers(ctx); return err },
		"ResetConsumer":   func() error { _, err := tbl.ResetConsumer(ctx, "job", 5, nil); return err },
		"DeleteConsumer":  func() error { return tbl.DeleteConsumer(ctx, "job") },
		"LatestSnapshot":  func() error { _, err := tbl.LatestSnapshot(ctx); return err },
		"EarlierOrEqual":  func() error { _, err := tbl.EarlierOrEqual(ctx, at(4)); return err },
		"LatestSchema":    func() error { _, err := tbl.LatestSchema(ctx); return err },
		"EarliestChanges": func() error { _, _, err := tbl.EarliestChangelogID(ctx); return err },
	} {
		if err := call(); !errors.Is(err, context.Canceled) {
			t.Errorf("%s error = %v, want context.Canceled", name, err)
		}
	}
	if rec.Total() != 0 {
		t.Errorf("storage calls after cancel: %s", rec)
	}
}

// TestCancelledMidResolve: the context is cancelled during the n-th storage
// call; no call follows it.
func TestCancelledMidResolve(t *testing.T) {
	b, path := faultTable(t)
	for n := 1; n <= 8; n++ {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			ctx, cancel := context.WithCancel(bg)
			defer cancel()
			wb, rec := blobtest.Wrap(b, &blobtest.Options{Before: func(_ context.Context, c blobtest.Call, _ *blob.Bucket) {
				if c.All == n {
					cancel()
				}
			}})
			tbl := openTable(t, wb, path, nil)
			r, _ := paimon.NewResolver(tbl, "job", nil)
			_, err := r.Resolve(ctx)
			if rec.Total() < n {
				return // the resolve needed fewer calls
			}
			if !errors.Is(err, context.Canceled) {
				t.Errorf("Resolve error = %v, want context.Canceled", err)
			}
			if rec.Total() != n {
				t.Errorf("%d calls, want %d (none after the cancel): %s", rec.Total(), n, rec)
			}
		})
	}
}

// TestSnapshotExpiredDuringRead: expiry runs while the resolver reads; the
// earliest snapshot vanishing is stepped over, and a time search whose
// snapshots vanish starts again.
func TestSnapshotExpiredDuringRead(t *testing.T) {
	b, path := faultTable(t)
	t.Run("EarliestVanishes", func(t *testing.T) {
		wb, _ := blobtest.Wrap(b, &blobtest.Options{Fault: blobtest.NotFoundKeys(regexp.MustCompile(`snapshot-3$`))})
		tbl := openTable(t, wb, path, nil)
		s, err := tbl.EarliestSnapshot(bg)
		if err != nil || s.ID != 4 {
			t.Errorf("EarliestSnapshot = %v, %v; want snapshot-4", s, err)
		}
	})
	t.Run("ExpiryDuringTimeSearch", func(t *testing.T) {
		mb, tb := newTable(t, 20, nil)
		expired := false
		wb, _ := blobtest.Wrap(mb, &blobtest.Options{Before: func(ctx context.Context, c blobtest.Call, inner *blob.Bucket) {
			if !expired && c.Op == blobtest.OpRead && strings.HasSuffix(c.Key, "snapshot/snapshot-1") {
				expired = true
				for id := 1; id < 8; id++ {
					inner.Delete(ctx, fmt.Sprintf("%ssnapshot/snapshot-%d", tb.Path(), id))
				}
				inner.WriteAll(ctx, tb.Path()+"snapshot/EARLIEST", []byte("8"), nil)
			}
		}})
		tbl := openTable(t, wb, tb.Path(), nil)
		st, err := tbl.StreamingStartAt(bg, at(10).Add(time.Second))
		if err != nil || st.Next != 11 || st.Earliest.ID != 8 {
			t.Errorf("StreamingStartAt = %+v, %v; want next 11 with earliest 8", st, err)
		}
	})
	t.Run("ConsumerSnapshotExpiresMidResolve", func(t *testing.T) {
		// snapshot-9 (the last consumed) is gone when read: At falls back to
		// the consumer file's time, the grade stays (replay: the consumer
		// is behind the latest snapshot).
		wb, _ := blobtest.Wrap(b, &blobtest.Options{Fault: blobtest.NotFoundKeys(regexp.MustCompile(`snapshot-9$`))})
		c, err := resolveOn(t, wb, path, nil)
		if err != nil || c.Guarantee != resume.Replay || c.At.IsZero() {
			t.Errorf("Resolve = %v %v, %v", c.Guarantee, c.At, err)
		}
	})
}
