package paimon_test

import (
	"fmt"
	"math/bits"
	"testing"
	"time"

	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
)

func ceilLog2(n int) int {
	if n <= 1 {
		return 0
	}
	return bits.Len(uint(n - 1))
}

// TestCostConsumerResolve: with correct hints a consumer resolve lists
// nothing and reads at most 6 objects, whatever the table size.
func TestCostConsumerResolve(t *testing.T) {
	for _, n := range []int{1, 2, 10, 100, 2000} {
		for _, next := range []int64{1, int64(n / 2), int64(n), int64(n + 1)} {
			if next < 1 {
				continue
			}
			t.Run(fmt.Sprintf("n=%d/next=%d", n, next), func(t *testing.T) {
				b, tb := newTable(t, n, map[string]string{"consumer.expiration-time": "1 d"})
				tb.Consumer("job", next)
				// The job stopped just after reading snapshot next-1 (a
				// consumer file newer than every snapshot it passed).
				wb, rec := stoppedAt(t, b, tb, at(int(next-1)).Add(30*time.Second))
				tbl := openTable(t, wb, tb.Path(), nil)
				r, _ := paimon.NewResolver(tbl, "job", nil)
				c, err := r.Resolve(bg)
				if err != nil {
					t.Fatal(err)
				}
				// Exact input only for a consumer that has read every
				// snapshot; behind it, the old job may have read on.
				want := resume.Replay
				if next == int64(n+1) {
					want = resume.ExactInput
				}
				if c.Guarantee != want {
					t.Fatalf("%v, want %v; warnings %q", c.Guarantee, want, c.Warnings)
				}
				if rec.Count(blobtest.OpList) != 0 || rec.Count(blobtest.OpRead) > 6 || rec.Count(blobtest.OpAttributes) > 3 {
					t.Errorf("cost %s; want list=0 read<=6 attributes<=3", rec)
				}
			})
		}
	}
}

// TestCostTimeSearch: a time search reads at most 2*ceil(log2 n)+4 objects
// (in fact ceil(log2 n)+4: two hints, the earliest snapshot, the bisection
// and the answer) and lists nothing with correct hints.
func TestCostTimeSearch(t *testing.T) {
	for _, n := range []int{1, 2, 3, 7, 100, 1000} {
		b, tb := newTable(t, n, nil)
		wb, rec := blobtest.Wrap(b, nil)
		tbl := openTable(t, wb, tb.Path(), nil)
		limit := 2*ceilLog2(n) + 4
		worst := 0
		for i := 0; i <= n+1; i += max(1, n/50) {
			for _, d := range []time.Duration{-time.Second, 0, time.Second} {
				ts := at(i).Add(d)
				for name, search := range map[string]func() error{
					"EarlierOrEqual":   func() error { _, err := tbl.EarlierOrEqual(bg, ts); return ignoreNotFound(err) },
					"LaterOrEqual":     func() error { _, err := tbl.LaterOrEqual(bg, ts); return ignoreNotFound(err) },
					"StreamingStartAt": func() error { _, err := tbl.StreamingStartAt(bg, ts); return err },
				} {
					rec.Reset()
					if err := search(); err != nil {
						t.Fatal(err)
					}
					reads := rec.Count(blobtest.OpRead)
					worst = max(worst, reads)
					if reads > limit || rec.Count(blobtest.OpList) != 0 {
						t.Errorf("n=%d %s(%v): %s; want read<=%d list=0", n, name, ts, rec, limit)
					}
				}
			}
		}
		t.Logf("n=%d: at most %d reads (limit %d, ceil(log2 n)+4 = %d)", n, worst, limit, ceilLog2(n)+4)
	}
}

func ignoreNotFound(err error) error {
	if err != nil && isNotFound(err) {
		return nil
	}
	return err
}

func isNotFound(err error) bool { return err != nil && errorsIs(err, paimon.ErrSnapshotNotFound) }

// TestCostStaleHints: a stale or missing hint costs one listing (one page
// for up to 1,000 snapshots), and nothing else.
func TestCostStaleHints(t *testing.T) {
	for _, tc := range []struct{ name, hint, content string }{
		{"LatestStale", "LATEST", "50"},
		{"LatestGarbage", "LATEST", "x"},
		{"EarliestStale", "EARLIEST", "1"},
		{"LatestMissing", "LATEST", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, tb := newTable(t, 100, nil)
			tb.ExpireBefore(10).Consumer("job", 60)
			if tc.content == "" {
				tb.DeleteHint(tc.hint)
			} else {
				tb.SetHint(tc.hint, tc.content)
			}
			wb, rec := blobtest.Wrap(b, nil)
			tbl := openTable(t, wb, tb.Path(), nil)
			r, _ := paimon.NewResolver(tbl, "job", nil)
			if _, err := r.Resolve(bg); err != nil {
				t.Fatal(err)
			}
			if rec.Count(blobtest.OpList) != 1 {
				t.Errorf("cost %s; want exactly one list call", rec)
			}
			if rec.Count(blobtest.OpRead) > 6+2 { // +2: the garbage hint is read 3 times
				t.Errorf("cost %s", rec)
			}
		})
	}
}

// TestCostConsumerBehindEarliest: a consumer below the earliest snapshot
// costs one more read (the changelog EARLIEST hint, read whether or not the
// options decouple changelogs, to warn about files Paimon will not read)
// and one more attribute call (changelog-<hint> exists); without the hint
// (a table that never kept changelogs) one listing of changelog/ instead,
// as Paimon's own lookup does. When the options decouple changelogs, the
// first readable changelog is read instead of the earliest snapshot.
func TestCostConsumerBehindEarliest(t *testing.T) {
	for _, tc := range []struct {
		name      string
		opts      map[string]string
		keep      bool // expired snapshots kept as long-lived changelogs
		g         resume.Guarantee
		next      int64
		lists     int
		reads     int
		attribute int
	}{
		{"NotDecoupled", nil, false, resume.DataLoss, 50, 1, 7, 3},
		{"NotDecoupledChangelogsIgnored", nil, true, resume.DataLoss, 50, 0, 7, 4},
		{"DecoupledInTheChangelogRange", decoupled, true, resume.Replay, 10, 0, 7, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, tb := newTable(t, 100, tc.opts)
			tb.Consumer("job", 10)
			if tc.keep {
				tb.ExpireKeepChangelog(50)
			} else {
				tb.ExpireBefore(50)
			}
			wb, rec := stoppedAt(t, b, tb, at(9).Add(30*time.Second))
			c, p := resolveBy(t, openTable(t, wb, tb.Path(), nil), &paimon.Options{WrittenMode: "exactly-once"})
			if c.Guarantee != tc.g || p.NextSnapshot != tc.next {
				t.Fatalf("%v next %d, want %v next %d; warnings %q", c.Guarantee, p.NextSnapshot, tc.g, tc.next, c.Warnings)
			}
			if rec.Count(blobtest.OpList) != tc.lists || rec.Count(blobtest.OpRead) > tc.reads || rec.Count(blobtest.OpAttributes) > tc.attribute {
				t.Errorf("cost %s; want list=%d read<=%d attributes<=%d", rec, tc.lists, tc.reads, tc.attribute)
			}
		})
	}
}
