package salvage_test

import (
	"context"
	"fmt"

	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/salvage"
)

// A job was refactored and its last checkpoint no longer fits it: start it
// stateless, with its Kafka source exactly where that checkpoint was.
func ExampleResolver() {
	ctx := context.Background()
	bucket := memblob.OpenBucket(nil)
	defer bucket.Close()
	l := &flinkckpttest.Layout{Bucket: bucket, Prefix: "ck/", Root: "s3a://prod-state/"}
	l.Checkpoint(ctx, "6f1e0000000000000000000000000001", 41, &flinkckpttest.Checkpoint{
		Sources: []flinkckpttest.Source{flinkckpttest.KafkaSource("orders-source", "orders", 1200, 1187, 1203)},
	})

	r, err := salvage.NewResolver(bucket, "ck/", &salvage.Options{
		Flink: &flinkckpt.Options{FlinkRoot: l.FlinkRoot()},
		// Live: &livecheck.Checkers{Kafka: kafkaoffset.Log{Client: client}} checks the offsets live.
	})
	if err != nil {
		panic(err)
	}
	c, err := r.Resolve(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println(c.Guarantee)
	fmt.Println(c.Position.Launch().Options["scan.startup.specific-offsets"])
	for _, w := range c.Warnings {
		fmt.Println(w.Code)
	}
	// Output:
	// exact-input
	// partition:0,offset:1200;partition:1,offset:1187;partition:2,offset:1203
	// salvage.not-checked
}
