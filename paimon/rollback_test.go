package paimon_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"gocloud.dev/blob"

	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/paimon/paimontest"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
)

// stoppedAt wraps b so that the consumer file of "job" reports modTime as
// its modification time: the stopped job's last progress (memblob would
// stamp "now").
func stoppedAt(t testing.TB, b *blob.Bucket, tb *paimontest.Table, modTime time.Time) (*blob.Bucket, *blobtest.Recorder) {
	t.Helper()
	wb, rec := blobtest.Wrap(b, nil)
	t.Cleanup(func() { wb.Close() })
	rec.SetModTime(tb.Key("consumer/consumer-job"), modTime)
	return wb, rec
}

// TestRollbackRecommittedIDsArePossibleLoss: rollback_to re-commits ids
// the stopped job's consumer had already passed. Paimon starts at the
// consumer's nextSnapshot and never reads them: possible loss (DataLoss),
// the lowest re-committed id offered as the replay start with the reset
// advice, At from the consumer file.
func TestRollbackRecommittedIDsArePossibleLoss(t *testing.T) {
	later := at(100)
	for _, tc := range []struct {
		name       string
		build      func(tb *paimontest.Table)
		consumedAt time.Time // the consumer file's modification time
		opts       paimon.Options
		g          resume.Guarantee
		next       int64
		replayFrom int64 // 0: no rollback found
		launch     string
		reset      string
	}{
		{
			// Read 1..8 (nextSnapshot 9), stopped; rollback_to 5; 6..9
			// committed again an hour and a half later.
			name: "ConsumerInsideTheRecommittedRange",
			build: func(tb *paimontest.Table) {
				tb.Consumer("job", 9).Recommit(5, later, later.Add(time.Minute), later.Add(2*time.Minute), later.Add(3*time.Minute))
			},
			consumedAt: at(8).Add(30 * time.Second),
			g:          resume.DataLoss, next: 9, replayFrom: 6, launch: "6",
			reset: "CALL sys.reset_consumer('default.t', 'job', 6)",
		},
		{
			// Caught up (nextSnapshot 11 = latest+1); rollback_to 7; 8..10
			// committed again: the job would wait for 11 and skip 8..10.
			name: "CaughtUpConsumer",
			build: func(tb *paimontest.Table) {
				tb.Consumer("job", 11).Recommit(7, later, later.Add(time.Minute), later.Add(2*time.Minute))
			},
			consumedAt: at(10).Add(30 * time.Second),
			g:          resume.DataLoss, next: 11, replayFrom: 8, launch: "8",
			reset: "CALL sys.reset_consumer('default.t', 'job', 8)",
		},
		{
			// Only the last id was committed again.
			name:       "OneID",
			build:      func(tb *paimontest.Table) { tb.Consumer("job", 11).Recommit(9, later) },
			consumedAt: at(10).Add(30 * time.Second),
			g:          resume.DataLoss, next: 11, replayFrom: 10, launch: "10",
			reset: "CALL sys.reset_consumer('default.t', 'job', 10)",
		},
		{
			// The job went on after the re-commits (its file is newer than
			// them): nothing to say, the consumer's start holds.
			name: "ConsumerWrittenAfterTheRecommits",
			build: func(tb *paimontest.Table) {
				tb.Consumer("job", 9).Recommit(5, later, later.Add(time.Minute), later.Add(2*time.Minute))
			},
			consumedAt: later.Add(time.Hour),
			g:          resume.ExactInput, next: 9, launch: "9",
			reset: "CALL sys.reset_consumer('default.t', 'job', 9)",
		},
		{
			// consumer.ignore-progress: Paimon starts at the launch's
			// scan.snapshot-id, which names the replay start: they are read.
			name: "IgnoreProgress",
			build: func(tb *paimontest.Table) {
				tb.Consumer("job", 9).Recommit(5, later, later.Add(time.Minute), later.Add(2*time.Minute), later.Add(3*time.Minute))
			},
			consumedAt: at(8).Add(30 * time.Second),
			opts:       paimon.Options{TableOptions: map[string]string{"consumer.ignore-progress": "true"}},
			g:          resume.Replay, next: 6, replayFrom: 6, launch: "6",
			reset: "CALL sys.reset_consumer('default.t', 'job', 6)",
		},
		{
			// Every retained snapshot was committed after the consumer's
			// progress: the search stops at the earliest.
			name: "DownToTheEarliest",
			build: func(tb *paimontest.Table) {
				tb.Consumer("job", 9).Recommit(3, later, later.Add(time.Minute), later.Add(2*time.Minute), later.Add(3*time.Minute), later.Add(4*time.Minute), later.Add(5*time.Minute)).ExpireBefore(5)
			},
			consumedAt: at(8).Add(30 * time.Second),
			g:          resume.DataLoss, next: 9, replayFrom: 5, launch: "5",
			reset: "CALL sys.reset_consumer('default.t', 'job', 5)",
		},
		{
			// Decoupled changelogs: the consumer is below the earliest
			// snapshot, in the changelog range; ids 3.. were committed again
			// and have expired into long-lived changelogs since. reset_consumer
			// refuses a changelog id: the advice deletes the consumer.
			name: "InTheChangelogRange",
			build: func(tb *paimontest.Table) {
				ts := make([]time.Time, 10)
				for i := range ts {
					ts[i] = later.Add(time.Duration(i) * time.Minute)
				}
				tb.Consumer("job", 4).Recommit(2, ts...).ExpireKeepChangelog(8)
			},
			consumedAt: at(3).Add(30 * time.Second),
			opts:       paimon.Options{TableOptions: decoupled},
			g:          resume.DataLoss, next: 4, replayFrom: 3, launch: "3",
			reset: "CALL sys.reset_consumer('default.t', 'job')",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, tb := newTable(t, 10, nil)
			tc.build(tb)
			wb, _ := stoppedAt(t, b, tb, tc.consumedAt)
			c, p := resolveBy(t, openTable(t, wb, tb.Path(), nil), &tc.opts)
			if c.Guarantee != tc.g || p.NextSnapshot != tc.next || p.ReplayFrom != tc.replayFrom {
				t.Fatalf("got %v next %d replay from %d, want %v next %d replay from %d\nreasons %q\nwarnings %q",
					c.Guarantee, p.NextSnapshot, p.ReplayFrom, tc.g, tc.next, tc.replayFrom, c.Reasons, c.Warnings)
			}
			if got := c.Position.Launch().Options["scan.snapshot-id"]; got != tc.launch {
				t.Errorf("launch scan.snapshot-id %q, want %q", got, tc.launch)
			}
			if p.ResetConsumerSQL != tc.reset {
				t.Errorf("reset %q, want %q", p.ResetConsumerSQL, tc.reset)
			}
			if got := c.HasWarning(paimon.WarnRollbackSuspected); got != (tc.replayFrom != 0) {
				t.Errorf("rollback warning %v; warnings %q", got, c.Warnings)
			}
			if tc.replayFrom == 0 {
				return
			}
			if !c.At.Equal(tc.consumedAt) {
				t.Errorf("At = %v, want the consumer file's time %v", c.At, tc.consumedAt)
			}
			if tc.g == resume.Replay {
				return // consumer.ignore-progress: no loss to word
			}
			want := fmt.Sprintf("possible loss: snapshots %d..%d were committed after the consumer's last progress", tc.replayFrom, tc.next-1)
			if tc.replayFrom == tc.next-1 {
				want = fmt.Sprintf("possible loss: snapshot %d was committed after the consumer's last progress", tc.replayFrom)
			}
			if !hasSub(c.Warnings, want) {
				t.Errorf("no warning says %q: %q", want, c.Warnings)
			}
		})
	}
}

// TestRollbackSearchCost: finding the lowest re-committed id gallops down
// from nextSnapshot-1 and bisects: at most 2*ceil(log2(d+1)) snapshot reads
// for d re-committed ids, on top of the consumer resolve's 6, whatever the
// table's size, and no listing. The table is what rollback_to plus d
// commits leaves: the last d snapshots committed after the consumer file
// was last written (here by pinning the file's time below them).
func TestRollbackSearchCost(t *testing.T) {
	for _, n := range []int{20, 2000} {
		b, tb := newTable(t, n, map[string]string{"consumer.expiration-time": "1 d"})
		tb.Consumer("job", int64(n+1))
		for _, d := range []int{1, 2, 3, 4, 7, 10, 100, 999} {
			if d >= n {
				continue
			}
			t.Run(fmt.Sprintf("n=%d/d=%d", n, d), func(t *testing.T) {
				wb, rec := stoppedAt(t, b, tb, at(n-d).Add(30*time.Second))
				c, p := resolveBy(t, openTable(t, wb, tb.Path(), nil), nil)
				if c.Guarantee != resume.DataLoss || p.ReplayFrom != int64(n-d+1) {
					t.Fatalf("got %v replay from %d, want data-loss from %d", c.Guarantee, p.ReplayFrom, n-d+1)
				}
				limit := 6 + 2*ceilLog2(d+1)
				if rec.Count(blobtest.OpList) != 0 || rec.Count(blobtest.OpRead) > limit {
					t.Errorf("cost %s; want list=0 read<=%d", rec, limit)
				}
				t.Logf("%d reads (limit %d)", rec.Count(blobtest.OpRead), limit)
			})
		}
	}
}

// TestRollbackSearchCostToTheFloor: when every retained snapshot below
// nextSnapshot was committed after the consumer's progress, the search
// reaches the earliest snapshot in at most 2*ceil(log2(n+1)) reads.
func TestRollbackSearchCostToTheFloor(t *testing.T) {
	for _, n := range []int{10, 100, 3000} {
		b, tb := newTable(t, n, nil)
		tb.Consumer("job", int64(n+1))
		wb, rec := stoppedAt(t, b, tb, at(1).Add(-time.Hour)) // older than every snapshot
		c, p := resolveBy(t, openTable(t, wb, tb.Path(), nil), nil)
		if c.Guarantee != resume.DataLoss || p.ReplayFrom != 1 {
			t.Fatalf("n=%d: got %v replay from %d, want data-loss from 1", n, c.Guarantee, p.ReplayFrom)
		}
		if limit := 6 + 2*ceilLog2(n+1); rec.Count(blobtest.OpRead) > limit || rec.Count(blobtest.OpList) != 0 {
			t.Errorf("n=%d: cost %s; want list=0 read<=%d", n, rec, limit)
		}
	}
}

// TestRollbackExpiredDuringSearch: snapshots that vanish while the search
// reads them (expiry running) count as the floor: the answer is the lowest
// re-committed id still there.
func TestRollbackExpiredDuringSearch(t *testing.T) {
	b, tb := newTable(t, 40, nil)
	tb.Consumer("job", 41)
	ts := make([]time.Time, 30)
	for i := range ts {
		ts[i] = at(200 + i)
	}
	tb.Recommit(10, ts...) // 11..40 committed again
	wb, rec := blobtest.Wrap(b, &blobtest.Options{Before: func(_ context.Context, c blobtest.Call, inner *blob.Bucket) {
		// Expiry deletes snapshots below 20 as soon as the search starts.
		if c.Op == blobtest.OpRead && c.Key == tb.Key("snapshot/snapshot-39") {
			for id := 1; id < 20; id++ {
				_ = inner.Delete(bg, tb.Key(fmt.Sprintf("snapshot/snapshot-%d", id)))
			}
		}
	}})
	t.Cleanup(func() { wb.Close() })
	rec.SetModTime(tb.Key("consumer/consumer-job"), at(40).Add(time.Second))
	c, p := resolveBy(t, openTable(t, wb, tb.Path(), nil), nil)
	if c.Guarantee != resume.DataLoss || p.ReplayFrom != 20 {
		t.Fatalf("got %v replay from %d, want data-loss from 20\nreasons %q", c.Guarantee, p.ReplayFrom, c.Reasons)
	}
	if !hasSub(c.Reasons, "ids below 20 were not examined") {
		t.Errorf("reasons %q", c.Reasons)
	}
}

// TestRollbackPositionJSON: the rollback position reads back from a
// decision document with its replay start.
func TestRollbackPositionJSON(t *testing.T) {
	b, tb := newTable(t, 10, nil)
	tb.Consumer("job", 9).Recommit(5, at(50), at(51), at(52), at(53))
	wb, _ := stoppedAt(t, b, tb, at(8).Add(time.Second))
	c, p := resolveBy(t, openTable(t, wb, tb.Path(), nil), nil)
	d := resume.Decision{Chosen: &c, Considered: []resume.Outcome{{Resolver: c.Resolver, Verdict: resume.VerdictChosen, Candidate: &c}}}
	data, err := d.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var back resume.Decision
	if err := back.UnmarshalJSON(data); err != nil {
		t.Fatal(err)
	}
	got, err := paimon.PositionOf(back.Chosen.Position)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(*p, *got); diff != "" {
		t.Errorf("position after a round trip (-want +got):\n%s", diff)
	}
}

// rollbackBench holds benchmark tables, built once per process: 100,000
// snapshots whose last d were committed again after the consumer's last
// progress (the state rollback_to plus d commits leaves).
var rollbackBench sync.Map // d -> *benchTable

// BenchmarkRollbackResolve: the cost of a consumer resolve that finds a
// rollback, by the number d of re-committed ids, on 100,000 snapshots.
func BenchmarkRollbackResolve(b *testing.B) {
	const n = 100_000
	for _, d := range []int{1, 10, 1_000, 50_000} {
		b.Run(fmt.Sprintf("recommitted=%d", d), func(b *testing.B) {
			v, _ := rollbackBench.LoadOrStore(d, &benchTable{})
			bt := v.(*benchTable)
			bt.once.Do(func() {
				b.StopTimer()
				defer b.StartTimer()
				mb, tb := newTable(&onceTB{b}, n-d, map[string]string{"consumer.expiration-time": "7 d"})
				tb.CommitEvery(d, at(n+100), time.Minute).Consumer("job", n+1)
				bt.b, bt.path = mb, tb.Path()
			})
			wb, rec := blobtest.Wrap(bt.b, nil)
			rec.SetModTime(bt.path+"consumer/consumer-job", at(n).Add(30*time.Second))
			tbl := openTable(b, wb, bt.path, nil)
			r, err := paimon.NewResolver(tbl, "job", nil)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				c, err := r.Resolve(bg)
				if err != nil {
					b.Fatal(err)
				}
				if p, _ := paimon.PositionOf(c.Position); p.ReplayFrom != int64(n-d+1) {
					b.Fatalf("replay from %d, want %d", p.ReplayFrom, n-d+1)
				}
			}
			b.ReportMetric(float64(rec.Count(blobtest.OpRead))/float64(b.N), "reads/op")
			b.ReportMetric(float64(rec.Count(blobtest.OpList))/float64(b.N), "lists/op")
		})
	}
}
