// Package kafkaoffsettest runs an in-process Kafka for restart tests: a
// franz-go kfake cluster on 127.0.0.1 with the situations a restarted job
// meets, set up in a line each — topics, records at given times, a group's
// commits, deleted records, transactions left open or ended, compacted and
// LogAppendTime topics, and another application's member in the group —
// and a *kgo.Client to read it with (package kafkaoffset takes it as is).
//
//	k := kafkaoffsettest.New(t, &kafkaoffsettest.Options{
//		Topics:    []kafkaoffsettest.Topic{{Name: "orders", Partitions: 2}},
//		CommitLog: true, // commits also land in __consumer_offsets, with their time
//	})
//	k.Produce("orders", 0, t0, t0.Add(time.Minute), t0.Add(2*time.Minute)) // offsets 0..2
//	k.CommitAt(t0.Add(3*time.Minute), "orders-job", "orders", map[int32]int64{0: 2})
//	k.Produce("orders", 1, t0, t0.Add(time.Minute))
//	k.DeleteRecords("orders", 1, 1) // retention took offset 0
//	tx := k.BeginTransaction("sink-1")
//	tx.Produce("orders", 0, t0.Add(4*time.Minute)) // left open: the last stable offset stays at 3
//	r, _ := kafkaoffset.NewResolver(k.Client, []string{"orders"}, &kafkaoffset.Options{Group: "orders-job"})
//
// Everything the helper starts stops when the test ends (t.Cleanup); every
// failure is a t.Fatalf naming what it was doing. It takes the small
// [resumetest.TB] every resumekit helper takes, so a program or an Example
// can pass its own ([resumetest.Run] makes one).
//
// # What kfake does not do, and what the helper does instead
//
// kfake keeps group offsets in memory and has no __consumer_offsets topic.
// With [Options.CommitLog] the helper creates that topic (50 partitions by
// default, as offsets.topic.num.partitions) and writes, for every commit,
// the OffsetCommit record a broker writes (key version 1, value version 3
// with the commit time) to the group's partition, so that a reader of the
// commit log sees what it would see on Kafka.
//
// kfake stores the producer's CreateTime even on a topic configured with
// message.timestamp.type=LogAppendTime, and a batch the producer marks
// LogAppendTime it re-stamps without recomputing the batch's CRC, so that
// every reader rejects it. For a [Topic] with LogAppendTime the helper
// stamps the records with the time of the append itself (a broker's
// LogAppendTime), in batches marked CreateTime: readers see the broker-side
// time, and learn that it is one from the topic's configuration.
//
// # Errors
//
// There are none to handle: every method fails the test through
// [resumetest.TB.Fatalf] with a message prefixed "kafkaoffsettest:".
package kafkaoffsettest
