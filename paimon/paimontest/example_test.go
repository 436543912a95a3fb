package paimontest_test

import (
	"context"
	"fmt"
	"time"

	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/paimon/paimontest"
	"github.com/resumekit/resumekit/resume/resumetest"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
)

// A table whose consumer fell behind expiry, then read back with package
// paimon.
func ExampleNew() {
	// In a test, pass t; resumetest.Run gives this Example a TB.
	err := resumetest.Run(func(t resumetest.TB) {
		ctx := context.Background()
		bucket := memblob.OpenBucket(nil)
		t.Cleanup(func() { bucket.Close() })
		start := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
		tb := paimontest.New(t, bucket, "wh/default.db/orders").
			// Changelogs outlive snapshots (7 d > snapshot.time-retained 1 h):
			// Paimon reads long-lived changelogs below the earliest snapshot.
			Schema(map[string]string{"consumer.expiration-time": "1 d", "changelog.time-retained": "7 d"}).
			CommitEvery(10, start, time.Minute). // snapshots 1..10
			Consumer("job", 3).                  // the job read 1 and 2
			ExpireKeepChangelog(6).              // snapshots 1..5 become long-lived changelogs
			ExpireChangelogBefore(4)             // changelogs 1..3 expire too

		table, err := paimon.NewTable(bucket, tb.Path(), nil)
		if err != nil {
			t.Fatalf("%v", err)
		}
		e, _ := table.EarliestSnapshotID(ctx)
		l, _ := table.LatestSnapshotID(ctx)
		c, _, _ := table.EarliestChangelogID(ctx)
		fmt.Printf("snapshots %d..%d, changelogs from %d\n", e, l, c)

		r, err := paimon.NewResolver(table, "job", nil)
		if err != nil {
			t.Fatalf("%v", err)
		}
		cand, err := r.Resolve(ctx)
		if err != nil {
			t.Fatalf("%v", err)
		}
		p, _ := paimon.PositionOf(cand.Position)
		fmt.Println(cand.Guarantee, "from", p.NextSnapshot)
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// snapshots 6..10, changelogs from 4
	// data-loss from 4
}

// A rollback re-commits ids a stopped job's consumer had already passed:
// Paimon would start at the consumer's nextSnapshot and never read them.
func ExampleTable_Recommit() {
	err := resumetest.Run(func(t resumetest.TB) {
		ctx := context.Background()
		mem := memblob.OpenBucket(nil)
		t.Cleanup(func() { mem.Close() })
		start := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
		tb := paimontest.New(t, mem, "wh/default.db/orders").
			CommitEvery(8, start, time.Minute). // snapshots 1..8
			Consumer("job", 9)                  // the job read them all, then stopped
		// memblob stamps the consumer file "now": pin it to 10:08 (after
		// snapshot 8), as the stopped job left it.
		bucket, rec := blobtest.Wrap(mem, nil)
		rec.SetModTime(tb.Key("consumer/consumer-job"), start.Add(8*time.Minute))
		// rollback_to 5, then the writer commits 6, 7, 8 again an hour later.
		later := start.Add(time.Hour)
		tb.Recommit(5, later, later.Add(time.Minute), later.Add(2*time.Minute))

		table, err := paimon.NewTable(bucket, tb.Path(), nil)
		if err != nil {
			t.Fatalf("%v", err)
		}
		r, err := paimon.NewResolver(table, "job", nil)
		if err != nil {
			t.Fatalf("%v", err)
		}
		cand, err := r.Resolve(ctx)
		if err != nil {
			t.Fatalf("%v", err)
		}
		p, _ := paimon.PositionOf(cand.Position)
		fmt.Println(cand.Guarantee, "at", p.NextSnapshot, "replay from", p.ReplayFrom)
		fmt.Println(p.ResetConsumerSQL)
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// data-loss at 9 replay from 6
	// CALL sys.reset_consumer('default.orders', 'job', 6)
}

// A running job rewrites its consumer file between any two reads.
func ExampleLiveConsumer() {
	err := resumetest.Run(func(t resumetest.TB) {
		ctx := context.Background()
		mem := memblob.OpenBucket(nil)
		t.Cleanup(func() { mem.Close() })
		tb := paimontest.New(t, mem, "wh/default.db/orders").
			CommitEvery(10, time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC), time.Minute)
		live := tb.LiveConsumer("job", 7)
		bucket, _ := blobtest.Wrap(mem, &blobtest.Options{Before: live.Before})

		table, err := paimon.NewTable(bucket, tb.Path(), nil)
		if err != nil {
			t.Fatalf("%v", err)
		}
		first, err := table.Consumer(ctx, "job")
		if err != nil {
			t.Fatalf("%v", err)
		}
		second, err := table.Consumer(ctx, "job")
		if err != nil {
			t.Fatalf("%v", err)
		}
		fmt.Println(first.NextSnapshot, second.NextSnapshot, live.Checkpoints())
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// 7 8 1
}
