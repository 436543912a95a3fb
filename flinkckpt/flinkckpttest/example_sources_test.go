package flinkckpttest_test

import (
	"context"
	"fmt"

	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sourcestate"
)

// A restart test builds a savepoint whose sources were somewhere — a Kafka
// topic at given offsets (its reader state in a file, compressed), a Paimon
// table, a MySQL binlog — and checks what resumekit reads back.
func ExampleSource() {
	ctx := context.Background()
	bucket := memblob.OpenBucket(nil)
	defer bucket.Close()
	l := &flinkckpttest.Layout{Bucket: bucket, Prefix: "savepoints/", Root: "s3a://prod-state/"}

	kafka := flinkckpttest.KafkaSource("orders-source", "orders", 42, 40)
	kafka.InFile, kafka.Compressed = true, true
	w, err := l.Savepoint(ctx, "savepoint-6f1e00-0123456789ab", 7, &flinkckpttest.Checkpoint{Sources: []flinkckpttest.Source{
		kafka,
		flinkckpttest.MonitorSource("lookup-source", 18),
		flinkckpttest.MySQLSource("customers-cdc", sourcestate.BinlogOffset{File: "mysql-bin.000017", Pos: 4711}),
	}})
	if err != nil {
		panic(err)
	}

	_, st, err := flinkckpt.Sources(ctx, bucket, w.Dir, nil)
	if err != nil {
		panic(err)
	}
	for _, src := range st.Sources {
		s := src.Summary()
		fmt.Println(s.Kind, s.Positions)
	}
	// Output:
	// kafka [{orders 0 42 } {orders 1 40 }]
	// paimon [{18  false true}]
	// mysql-cdc [{mysql-bin.000017 4711  0 0 0 }]
}
