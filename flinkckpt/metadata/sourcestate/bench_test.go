package sourcestate_test

import (
	"fmt"
	"testing"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sourcestate"
)

// benchSnapshot is a savepoint of a KafkaSource reading 1,000 partitions
// (topics of 100) at parallelism 50, every split inline, as a 20-subtask
// job with a large topic list has it.
func benchSnapshot(b *testing.B, compressed bool) []byte {
	src := flinkckpttest.Source{UID: "kafka-source", Parallelism: 50, Compressed: compressed}
	var parts []sourcestate.KafkaPartition
	for i := 0; i < 1000; i++ {
		sp := sourcestate.KafkaSplit{Subtask: int32(i % 50), Topic: fmt.Sprintf("events.region-%02d", i/100), Partition: int32(i % 100),
			StartingOffset: int64(1_000_000 + i), StoppingOffset: sourcestate.OffsetNone}
		src.Splits = append(src.Splits, flinkckpttest.KafkaSplit(sp))
		initial := sp
		initial.StartingOffset = sourcestate.OffsetEarliest
		parts = append(parts, sourcestate.KafkaPartition{Topic: sp.Topic, Partition: sp.Partition, Status: sourcestate.StatusAssigned, Split: &initial})
	}
	src.Coordinator, _ = flinkckpttest.KafkaEnumerator(sourcestate.KafkaEnumerator{Version: 3, Partitions: parts, InitialDiscoveryFinished: true})
	md := &metadata.Checkpoint{Version: 4, CheckpointID: 1, Savepoint: true}
	op, _ := src.Operator(4, nil)
	md.Operators = append(md.Operators, op)
	data, err := flinkckpttest.Encode(md)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkDecode1000Splits parses a _metadata holding 1,000 KafkaSource
// splits (and an enumerator state naming them) and decodes every position.
func BenchmarkDecode1000Splits(b *testing.B) {
	for _, compressed := range []bool{false, true} {
		name := "inline"
		if compressed {
			name = "inline-snappy"
		}
		b.Run(name, func(b *testing.B) {
			data := benchSnapshot(b, compressed)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				md, err := metadata.Parse(data, nil)
				if err != nil {
					b.Fatal(err)
				}
				st, err := sourcestate.Decode(md, nil)
				if err != nil {
					b.Fatal(err)
				}
				ps, _ := st.Sources[0].Kafka.Positions()
				if len(ps) != 1000 {
					b.Fatalf("%d positions", len(ps))
				}
			}
		})
	}
}
