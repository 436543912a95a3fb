package kafkaoffsettest

import (
	"context"
	"encoding/binary"
	"hash/crc32"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
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
// stamped with its time (CreateTime; on a LogAppendTime topic the broker
// stamps them all with its clock).
func (c *Cluster) Produce(topic string, partition int32, times ...time.Time) Appended {
	c.t.Helper()
	recs := make([]Record, len(times))
	for i, ts := range times {
		recs[i] = Record{Value: []byte("v"), Time: ts}
	}
	return c.ProduceRecords(topic, partition, recs...)
}

// ProduceRecords appends records to a partition in one batch.
func (c *Cluster) ProduceRecords(topic string, partition int32, recs ...Record) Appended {
	c.t.Helper()
	if len(recs) == 0 {
		return Appended{}
	}
	if c.logAppend[topic] {
		return c.produceLogAppendTime(topic, partition, recs)
	}
	return produceWith(c.t, c.prod, topic, partition, recs)
}

func produceWith(t interface {
	Helper()
	Fatalf(string, ...any)
}, cl *kgo.Client, topic string, partition int32, recs []Record) Appended {
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

// produceLogAppendTime sends the records as one batch marked LogAppendTime
// (attribute bit 3), which kfake, like a broker for such a topic, stamps
// with its own clock. kgo's producer never marks batches so: the batch is
// built here, CRC-32C over everything after the CRC field.
func (c *Cluster) produceLogAppendTime(topic string, partition int32, recs []Record) Appended {
	c.t.Helper()
	now := time.Now().UnixMilli() // the broker overwrites it
	var body []byte
	for i, r := range recs {
		kr := kmsg.Record{OffsetDelta: int32(i), Key: r.Key, Value: r.Value}
		n := len(kr.AppendTo(nil)) - 1 // everything after a one-byte zero length
		kr.Length = int32(n)
		body = kr.AppendTo(body)
	}
	batch := kmsg.RecordBatch{
		PartitionLeaderEpoch: -1,
		Magic:                2,
		Attributes:           0x08, // LogAppendTime
		LastOffsetDelta:      int32(len(recs) - 1),
		FirstTimestamp:       now,
		MaxTimestamp:         now,
		ProducerID:           -1,
		ProducerEpoch:        -1,
		FirstSequence:        -1,
		NumRecords:           int32(len(recs)),
		Records:              body,
	}
	raw := batch.AppendTo(nil)
	binary.BigEndian.PutUint32(raw[8:], uint32(len(raw)-12))
	binary.BigEndian.PutUint32(raw[17:], crc32.Checksum(raw[21:], crc32.MakeTable(crc32.Castagnoli)))

	ctx := context.Background()
	topics, err := c.Admin.ListTopics(ctx, topic)
	if err != nil || topics[topic].Err != nil {
		c.t.Fatalf("kafkaoffsettest: produce to %s/%d: topic metadata: %v %v", topic, partition, err, topics[topic].Err)
	}
	req := kmsg.NewPtrProduceRequest()
	req.Acks = -1
	req.TimeoutMillis = 10_000
	rt := kmsg.NewProduceRequestTopic()
	rt.Topic = topic
	rt.TopicID = topics[topic].ID
	rp := kmsg.NewProduceRequestTopicPartition()
	rp.Partition = partition
	rp.Records = raw
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	leader := c.Kafka.LeaderFor(topic, partition)
	kresp, err := c.prod.Broker(int(leader)).Request(ctx, req)
	if err != nil {
		c.t.Fatalf("kafkaoffsettest: produce to %s/%d: %v", topic, partition, err)
	}
	resp := kresp.(*kmsg.ProduceResponse)
	for _, rt := range resp.Topics {
		for _, rp := range rt.Partitions {
			if err := kerr.ErrorForCode(rp.ErrorCode); err != nil {
				c.t.Fatalf("kafkaoffsettest: produce to %s/%d: %v", topic, partition, err)
			}
			return Appended{First: rp.BaseOffset, Next: rp.BaseOffset + int64(len(recs)), LogAppendTime: time.UnixMilli(rp.LogAppendTime).UTC()}
		}
	}
	c.t.Fatalf("kafkaoffsettest: produce to %s/%d: no answer for the partition", topic, partition)
	return Appended{}
}
