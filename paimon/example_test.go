package paimon_test

import (
	"context"
	"fmt"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/paimon/paimontest"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
)

// exampleBucket holds a table wh/default.db/orders with snapshots 1..10
// committed a minute apart from 10:00 UTC, snapshots 1..3 expired, and a
// schema with consumer.expiration-time.
func exampleBucket() *blob.Bucket {
	ctx := context.Background()
	b := memblob.OpenBucket(nil)
	put := func(key string, data []byte) {
		if err := b.WriteAll(ctx, "wh/default.db/orders/"+key, data, nil); err != nil {
			panic(err)
		}
	}
	start := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	put("schema/schema-0", paimontest.SchemaJSON(0, map[string]string{"consumer.expiration-time": "7 d"}, start))
	for id := int64(4); id <= 10; id++ {
		put(fmt.Sprintf("snapshot/snapshot-%d", id), paimontest.SnapshotJSON(id, 0, start.Add(time.Duration(id-1)*time.Minute), "writer"))
	}
	put("snapshot/EARLIEST", []byte("4"))
	put("snapshot/LATEST", []byte("10"))
	return b
}

// A job that ran with consumer-id recorded its progress: restart there.
func ExampleResolver() {
	ctx := context.Background()
	mem := exampleBucket()
	defer mem.Close()
	const key = "wh/default.db/orders/consumer/consumer-orders-job"
	mem.WriteAll(ctx, key, paimon.ConsumerJSON(8), nil)
	// The job wrote the file at 10:07, after it read snapshot 7 (memblob
	// would stamp the machine's clock).
	b, rec := blobtest.Wrap(mem, nil)
	defer b.Close()
	rec.SetModTime(key, time.Date(2026, 11, 29, 10, 7, 0, 0, time.UTC))

	table, _ := paimon.NewTable(b, "wh/default.db/orders", nil)
	r, _ := paimon.NewResolver(table, "orders-job", nil)
	c, err := r.Resolve(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	p, _ := paimon.PositionOf(c.Position)
	// Replay: the old job may have read on into snapshots 8..10 (the
	// latest) after the checkpoint that wrote its file.
	fmt.Println(c.Guarantee, p.NextSnapshot, c.At.Format(time.TimeOnly), c.HasWarning(paimon.WarnConsumerLagsOutput))
	fmt.Println(p.SQLHint)
	// Output:
	// replay 8 10:06:00 true
	// /*+ OPTIONS('consumer-id'='orders-job','scan.snapshot-id'='8') */
}

// A job that never had a consumer id: find where a read from a time starts,
// and bind a new consumer there before the job starts.
func ExampleResolver_byTime() {
	ctx := context.Background()
	b := exampleBucket()
	defer b.Close()
	table, _ := paimon.NewTable(b, "wh/default.db/orders", nil)
	lastGood := time.Date(2026, 11, 29, 10, 5, 30, 0, time.UTC)
	r, _ := paimon.NewResolver(table, "orders-job", &paimon.Options{StartTime: lastGood})
	c, _ := r.Resolve(ctx)
	p, _ := paimon.PositionOf(c.Position)
	fmt.Println(c.Guarantee, p.NextSnapshot)
	fmt.Println(resume.HintOptions(c.Position.Launch().Options))
	fmt.Println(p.ResetConsumerSQL)

	// A new consumer: there must be no file yet (Observe -1 skips the
	// short watch for a running job, which this example has none of).
	plan, _ := table.ResetConsumer(ctx, "orders-job", p.NextSnapshot, &paimon.ResetOptions{ExpectAbsent: true, Observe: -1})
	fmt.Printf("%s\n%s\n", plan.Key, plan.Content)
	// Output:
	// replay 7
	// 'consumer-id'='orders-job','scan.snapshot-id'='7'
	// CALL sys.reset_consumer('default.orders', 'orders-job', 7)
	// wh/default.db/orders/consumer/consumer-orders-job
	// {
	//   "nextSnapshot" : 7
	// }
}

func ExampleTable_StreamingStartAt() {
	ctx := context.Background()
	b := exampleBucket()
	defer b.Close()
	table, _ := paimon.NewTable(b, "wh/default.db/orders", nil)
	for _, hhmm := range []string{"09:00:00", "10:05:00", "10:05:30", "11:00:00"} {
		t, _ := time.Parse(time.DateTime, "2026-11-29 "+hhmm)
		st, _ := table.StreamingStartAt(ctx, t)
		le, err := table.EarlierOrEqual(ctx, t)
		before := "none"
		if err == nil {
			before = fmt.Sprint(le.ID)
		}
		fmt.Printf("%s: start at %d, earlier-or-equal %s\n", hhmm, st.Next, before)
	}
	// Output:
	// 09:00:00: start at 4, earlier-or-equal none
	// 10:05:00: start at 6, earlier-or-equal 6
	// 10:05:30: start at 7, earlier-or-equal 6
	// 11:00:00: start at 11, earlier-or-equal 10
}
