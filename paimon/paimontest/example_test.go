package paimontest_test

import (
	"context"
	"fmt"
	"time"

	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/paimon/paimontest"
	"github.com/resumekit/resumekit/resume/resumetest"
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
			Schema(map[string]string{"consumer.expiration-time": "1 d"}).
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
