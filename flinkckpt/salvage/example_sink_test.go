package salvage_test

import (
	"context"
	"encoding/binary"
	"fmt"

	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/jobgraph"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sinkstate"
	"github.com/resumekit/resumekit/flinkckpt/salvage"
)

// The job writes through a two-phase sink (uid "orders-sink"), and its
// last checkpoint's committer still held the transaction it prepared at
// checkpoint 41. A stateless start never commits it: data loss, unless
// the operator checked the sink and found it committed (SinkCommitted).
func ExampleOptions_sinkCommitted() {
	ctx := context.Background()
	bucket := memblob.OpenBucket(nil)
	defer bucket.Close()
	l := &flinkckpttest.Layout{Bucket: bucket, Prefix: "ck/", Root: "s3a://prod-state/"}
	committer := flinkckpttest.Source{UID: "Sink Committer: orders-sink", ListStates: []flinkckpttest.ListState{{
		Name: sinkstate.CommitterStateName, Elements: []flinkckpttest.ListElement{{Data: onePendingCommittable(41)}}}}}
	l.Checkpoint(ctx, "6f1e0000000000000000000000000001", 41, &flinkckpttest.Checkpoint{
		Sources: []flinkckpttest.Source{flinkckpttest.KafkaSource("orders-source", "orders", 1200), committer},
	})
	job := jobgraph.JobFromUIDs("orders-source-v2") // the refactored job
	job.AddSinkUID("orders-sink")
	job.AllUIDs = true // every operator of the new job is named

	for _, committed := range []bool{false, true} {
		r, _ := salvage.NewResolver(bucket, "ck/", &salvage.Options{
			Flink: &flinkckpt.Options{FlinkRoot: l.FlinkRoot()}, Job: job, SinkCommitted: committed})
		c, err := r.Resolve(ctx)
		if err != nil {
			panic(err)
		}
		pos, _ := salvage.PositionOf(c.Position)
		fmt.Println(c.Guarantee, pos.Sinks[0].UID, pos.Sinks[0].Pending, "lost", pos.Sinks[0].Lost)
	}
	// Output:
	// data-loss Sink Committer: orders-sink [{41 false 1 [] 1}] lost 1
	// exact-input Sink Committer: orders-sink [{41 false 1 [] 1}] lost 0
}

// onePendingCommittable is a committer subtask's list state element as
// Flink 1.20 writes it: one committable of checkpoint id, received and not
// committed (CommittableCollectorSerializer v2, checkpoint serializer v1,
// subtask serializer v1).
func onePendingCommittable(id int64) []byte {
	i32 := func(b []byte, v uint32) []byte { return binary.BigEndian.AppendUint32(b, v) }
	frame := func(b, data []byte) []byte { return append(i32(b, uint32(len(data))), data...) }
	req := frame(i32(nil, 1), []byte("txn")) // committable: serializer version, bytes
	req = i32(i32(req, 0), 0)                // retries, state RECEIVED
	sub := i32(i32(i32(nil, 0), 0), 1)       // subtask 0, request serializer v0, 1 request
	sub = frame(sub, req)
	sub = i32(i32(i32(sub, 1), 0), 0) // committables, drained, failed
	cp := binary.BigEndian.AppendUint64(nil, uint64(id))
	cp = i32(i32(i32(cp, 1), 1), 1) // 1 writer subtask, subtask serializer v1, 1 subtask
	cp = frame(cp, sub)
	col := i32(i32(i32(nil, sinkstate.Magic), 1), 1) // magic, checkpoint serializer v1, 1 checkpoint
	col = frame(col, cp)
	// The element: its length, then SimpleVersionedSerialization (version 2).
	return frame(i32(i32(nil, uint32(len(col)+8)), 2), col)
}
