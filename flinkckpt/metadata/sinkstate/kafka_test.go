package sinkstate_test

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/resumekit/resumekit/flinkckpt/metadata/sinkstate"
)

// kafkaCommittable writes a KafkaCommittable as KafkaCommittableSerializer
// does: writeShort(epoch), writeLong(producerId), writeUTF(transactionalId).
func kafkaCommittable(epoch int16, pid int64, id string) []byte {
	b := binary.BigEndian.AppendUint16(nil, uint16(epoch))
	b = be64(b, pid)
	b = binary.BigEndian.AppendUint16(b, uint16(len(id)))
	return append(b, id...)
}

// A KafkaSink committer's pending requests decode to their transactions
// (transactional id, producer id, epoch), listed per checkpoint; a
// committable of any other type is counted as Other, and a committed or
// failed request is no pending transaction.
func TestKafkaCommittables(t *testing.T) {
	k0 := kafkaCommittable(3, 1007, "orders-sink-0-8")
	k1 := kafkaCommittable(0, 1008, "orders-sink-1-8")
	data := collectorV2(1, 2, checkpoint{id: 8, writerSubtasks: 2, writers: []writer{
		{subtask: 0, requests: []request{{committable: k0}, {committable: kafkaCommittable(2, 1007, "orders-sink-0-7"), state: 3}}},
		{subtask: 1, requests: []request{{committable: k1, state: 1}, {committable: []byte("a paimon committable")}}},
	}})
	s, err := sinkstate.ParseCollector(2, data)
	if err != nil {
		t.Fatal(err)
	}
	c := sinkstate.Committer{Subtasks: []sinkstate.Subtask{s}}
	want := []sinkstate.Pending{{CheckpointID: 8, Committables: 3, Other: 1, Kafka: []sinkstate.KafkaCommittable{
		{TransactionalID: "orders-sink-0-8", ProducerID: 1007, Epoch: 3}, {TransactionalID: "orders-sink-1-8", ProducerID: 1008}}}}
	if d := cmp.Diff(want, c.Pending()); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	// Flink 1.14's StreamingCommitterState holds KafkaCommittables too.
	s, err = sinkstate.ParseCollector(1, collectorV1(k0))
	if err != nil || len(s.Checkpoints) != 1 || len(s.Checkpoints[0].Kafka) != 1 || s.Checkpoints[0].Kafka[0].TransactionalID != "orders-sink-0-8" {
		t.Errorf("legacy: %+v %v", s, err)
	}
}

// Bytes that are no KafkaCommittable are refused, naming the problem.
func TestKafkaCommittableRejects(t *testing.T) {
	ok := kafkaCommittable(1, 5, "t-0-1")
	for name, tc := range map[string]struct {
		version int32
		b       []byte
		want    string
	}{
		"other version":  {2, ok, "committable serializer version 2"},
		"trailing":       {1, append(ok, 0), "1 trailing bytes"},
		"short":          {1, ok[:5], "producer id"},
		"negative epoch": {1, kafkaCommittable(-1, 5, "t"), "epoch -1"},
		"negative pid":   {1, kafkaCommittable(1, -5, "t"), "producer id -5"},
		"empty id":       {1, kafkaCommittable(1, 5, ""), "empty transactional id"},
		"bad utf":        {1, append(kafkaCommittable(1, 5, "")[:10], 0, 1, 0xff), "invalid modified UTF-8"},
	} {
		if _, err := sinkstate.ParseKafkaCommittable(tc.version, tc.b); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "KafkaCommittable") {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
	if k, err := sinkstate.ParseKafkaCommittable(1, ok); err != nil || k != (sinkstate.KafkaCommittable{TransactionalID: "t-0-1", ProducerID: 5, Epoch: 1}) {
		t.Errorf("%+v %v", k, err)
	}
}

// FuzzKafkaCommittable: any bytes decode to a committable or an error,
// never a panic; a decoded one has a non-empty id, a producer id and an
// epoch not below 0.
func FuzzKafkaCommittable(f *testing.F) {
	f.Add(int32(1), kafkaCommittable(3, 1007, "orders-sink-0-8"))
	f.Add(int32(1), []byte{0, 1})
	f.Fuzz(func(t *testing.T, version int32, b []byte) {
		k, err := sinkstate.ParseKafkaCommittable(version, b)
		if err == nil && (k.TransactionalID == "" || k.ProducerID < 0 || k.Epoch < 0) {
			t.Errorf("decoded %+v", k)
		}
	})
}
