package kafkaoffsettest

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/resumekit/resumekit/resume/resumetest"
)

// Record is one record to produce. A nil Value is a tombstone (a delete, on
// a compacted topic).
type Record struct {
	Key, Value []byte
	// Time is the record's CreateTime; ignored on a LogAppendTime topic.
	Time time.Time
}

// Appended is where produced records landed.
type Appended struct {
	// First is the offset of the first record, Next the offset after the
	// last (the partition's end offset right after the append).
	First, Next int64
	// LogAppendTime is the broker's time stamped on the records of a
	// LogAppendTime topic; zero on a CreateTime topic.
	LogAppendTime time.Time
}

// Produce appends one record per time (value "v") to a partition, in one
// batch: offsets First, First+1, … in the order of times, each record
// stamped with its time (CreateTime; on a LogAppendTime topic all are
// stamped with the time of the append, see Appended.LogAppendTime).
func (c *Cluster) Produce(topic string, partition int32, times ...time.Time) Appended {
	c.t.Helper()
	return c.ProduceRecords(topic, partition, timed(times)...)
}

// timed returns one record (value "v") per time.
func timed(times []time.Time) []Record {
	recs := make([]Record, len(times))
	for i, ts := range times {
		recs[i] = Record{Value: []byte("v"), Time: ts}
	}
	return recs
}

// ProduceRecords appends records to a partition in one batch.
func (c *Cluster) ProduceRecords(topic string, partition int32, recs ...Record) Appended {
	c.t.Helper()
	if len(recs) == 0 {
		return Appended{}
	}
	c.mu.Lock()
	logAppend := c.logAppend[topic]
	c.mu.Unlock()
	if logAppend {
		return c.produceLogAppendTime(topic, partition, recs)
	}
	return produceWith(c.t, c.prod, topic, partition, recs)
}

func produceWith(t resumetest.TB, cl *kgo.Client, topic string, partition int32, recs []Record) Appended {
	t.Helper()
	krs := make([]*kgo.Record, len(recs))
	for i, r := range recs {
		krs[i] = &kgo.Record{Topic: topic, Partition: partition, Key: r.Key, Value: r.Value, Timestamp: r.Time}
	}
	res := cl.ProduceSync(context.Background(), krs...)
	if err := res.FirstErr(); err != nil {
		t.Fatalf("kafkaoffsettest: produce %d records to %s/%d: %v", len(recs), topic, partition, err)
	}
	return Appended{First: res[0].Record.Offset, Next: res[len(res)-1].Record.Offset + 1}
}

// produceLogAppendTime appends the records stamped with the time of the
// append, the broker's time a LogAppendTime topic gives its records. kfake
// would stamp a batch marked LogAppendTime itself, but leaves the batch's
// CRC as the producer computed it, so every reader rejects the batch: the
// helper stamps the time instead, and the batch stays marked CreateTime.
func (c *Cluster) produceLogAppendTime(topic string, partition int32, recs []Record) Appended {
	c.t.Helper()
	now := time.Now().UTC().Truncate(time.Millisecond)
	stamped := make([]Record, len(recs))
	for i, r := range recs {
		r.Time = now
		stamped[i] = r
	}
	a := produceWith(c.t, c.prod, topic, partition, stamped)
	a.LogAppendTime = now
	return a
}
