package kafkaoffset_test

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/resumekit/resumekit/kafkaoffset"
)

// A stateless job read "orders" with group "orders-job"; partition 1 was
// added after its last commit. The resolver starts partition 0 at the
// commit and partition 1 at its log start, and says so.
func Example() {
	ctx := context.Background()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, "orders"))
	if err != nil {
		panic(err)
	}
	defer c.Close()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		panic(err)
	}
	defer cl.Close()

	t0 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	for i := range 5 {
		r := &kgo.Record{Topic: "orders", Partition: 0, Value: []byte("order"), Timestamp: t0.Add(time.Duration(i) * time.Minute)}
		if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
			panic(err)
		}
	}
	commit := make(kadm.Offsets)
	commit.AddOffset("orders", 0, 3, -1)
	if _, err := kadm.NewClient(cl).CommitOffsets(ctx, "orders-job", commit); err != nil {
		panic(err)
	}

	r, err := kafkaoffset.NewResolver(cl, []string{"orders"}, &kafkaoffset.Options{
		Group: "orders-job",
		Now:   func() time.Time { return t0.Add(time.Hour) }, // the restart's "now"; nil: the clock
	})
	if err != nil {
		panic(err)
	}
	cand, err := r.Resolve(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println(cand.Guarantee, cand.At.Format(time.RFC3339))
	fmt.Println(cand.Position.Launch().Options["scan.startup.specific-offsets"])
	p, _ := kafkaoffset.PositionOf(cand.Position)
	for _, pp := range p.Partitions {
		fmt.Printf("%s/%d: %s\n", pp.Topic, pp.Partition, pp.Reason)
	}
	// Output:
	// replay 2026-11-29T10:02:00Z
	// partition:0,offset:3;partition:1,offset:0
	// orders/0: committed 3 (log 0..5, 2 records after it)
	// orders/1: no commit: starts at the log start 0, as Flink starts newly discovered partitions (0 records)
}
