package kafkaoffsettest_test

import (
	"context"
	"fmt"
	"time"

	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/kafkaoffset/kafkaoffsettest"
	"github.com/resumekit/resumekit/resume/resumetest"
)

// A restart test in ten lines: a job read "orders" and committed on its last
// checkpoint; an exactly-once producer has a transaction open on partition
// 1. The resolver starts at the commits, at their commit time, and stays
// below the open transaction.
func Example() {
	// In a test, pass t; resumetest.Run gives this Example a TB and stops the
	// cluster when the function returns.
	err := resumetest.Run(func(t resumetest.TB) {
		t0 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

		k := kafkaoffsettest.New(t, &kafkaoffsettest.Options{Topics: []kafkaoffsettest.Topic{{Name: "orders", Partitions: 2}}, CommitLog: true})
		k.Produce("orders", 0, t0, t0.Add(time.Minute), t0.Add(2*time.Minute))
		k.Produce("orders", 1, t0, t0.Add(time.Minute))
		k.CommitAt(t0.Add(150*time.Second), "orders-job", "orders", map[int32]int64{0: 3, 1: 2})
		k.BeginTransaction("orders-sink-0").Produce("orders", 1, t0.Add(3*time.Minute)) // left open

		r, err := kafkaoffset.NewResolver(k.Client, []string{"orders"}, &kafkaoffset.Options{
			Group: "orders-job",
			Now:   func() time.Time { return t0.Add(time.Hour) }, // the restart's "now"; nil: the clock
		})
		if err != nil {
			t.Fatalf("%v", err)
		}
		c, err := r.Resolve(context.Background())
		if err != nil {
			t.Fatalf("%v", err)
		}
		fmt.Println(c.Guarantee, "at", c.At.Format(time.RFC3339))
		fmt.Println(c.Position.Launch().Options["scan.startup.specific-offsets"])
		start, end, lastStable := k.Offsets("orders", 1)
		fmt.Printf("orders/1: log %d..%d, last stable offset %d\n", start, end, lastStable)
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// replay at 2026-11-29T10:02:30Z
	// partition:0,offset:3;partition:1,offset:2
	// orders/1: log 0..3, last stable offset 2
}
