package sourcestate_test

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sourcestate"
)

// Elements of a FlinkKafkaConsumer's "topic-partition-offset-states" as
// Flink 1.20.3 wrote them: each Tuple2<KafkaTopicPartition, Long> through
// the TupleSerializer FlinkKafkaConsumerBase.createStateSerializer builds
// (a KryoSerializer of KafkaTopicPartition, LongSerializer), serialized by
// flink-core 1.20.3 and flink-connector-kafka 3.4.0-1.20 into a
// DataOutputSerializer and printed in hex. The offsets are the last record
// read; -915623761775 is the EARLIEST_OFFSET sentinel.
var realLegacyKafkaElements = []struct {
	hex  string
	want sourcestate.KafkaSplit // Subtask 0
}{
	{"5701899998ff0800016f72646572f30000000000000029", sourcestate.KafkaSplit{Topic: "orders", Partition: 0, StartingOffset: 42, StoppingOffset: sourcestate.OffsetNone}},
	{"5701879998ff0802016f72646572f30000000000000009", sourcestate.KafkaSplit{Topic: "orders", Partition: 1, StartingOffset: 10, StoppingOffset: sourcestate.OffsetNone}},
	{"5701d499fbe00504016f72646572732d65f5ffffff2ad0922891", sourcestate.KafkaSplit{Topic: "orders-eu", Partition: 2, StartingOffset: sourcestate.OffsetEarliest, StoppingOffset: sourcestate.OffsetNone}},
	{"5701b038180182740000000000000000", sourcestate.KafkaSplit{Topic: "t", Partition: 12, StartingOffset: 1, StoppingOffset: sourcestate.OffsetNone}},
}

// LegacyKafkaConsumer is a FlinkKafkaConsumer source holding elements on
// one subtask each, in the order given.
func legacyKafkaConsumer(t testing.TB, uid string, hexes ...string) flinkckpttest.Source {
	t.Helper()
	s := flinkckpttest.Source{UID: uid, Parallelism: len(hexes), ListStates: []flinkckpttest.ListState{{Name: "topic-partition-offset-states"}}}
	for i, h := range hexes {
		b, err := hex.DecodeString(h)
		if err != nil {
			t.Fatal(err)
		}
		s.ListStates[0].Elements = append(s.ListStates[0].Elements, flinkckpttest.ListElement{Subtask: int32(i), Data: b})
	}
	return s
}

// TestLegacyKafkaConsumerDecode: the FlinkKafkaConsumer's offsets decode
// from the real element bytes into KafkaSource splits that start after the
// last record read (offset+1), the sentinels as markers — from inline
// state, from state files, and from a Snappy-compressed stream; each
// subtask's last element is read to the end of its stream.
func TestLegacyKafkaConsumerDecode(t *testing.T) {
	var hexes []string
	var want []sourcestate.KafkaSplit
	for i, e := range realLegacyKafkaElements {
		hexes = append(hexes, e.hex)
		w := e.want
		w.Subtask = int32(i)
		want = append(want, w)
	}
	for _, tc := range []struct {
		name             string
		inFile, compress bool
	}{{"Inline", false, false}, {"InFile", true, false}, {"Compressed", false, true}} {
		t.Run(tc.name, func(t *testing.T) {
			src := legacyKafkaConsumer(t, "kafka-in", hexes...)
			src.InFile, src.Compressed = tc.inFile, tc.compress
			st := decodeSources(t, 4, src)
			if len(st.Sources) != 1 {
				t.Fatalf("%d sources", len(st.Sources))
			}
			s := st.Sources[0]
			if s.Err != nil || s.Kind != sourcestate.KindKafka || s.Kafka == nil {
				t.Fatalf("kind %s, err %v", s.Kind, s.Err)
			}
			if diff := cmp.Diff(want, s.Kafka.Splits); diff != "" {
				t.Errorf("splits (-want +got):\n%s", diff)
			}
			if !strings.Contains(strings.Join(s.Notes, "\n"), "legacy FlinkKafkaConsumer") {
				t.Errorf("notes %q", s.Notes)
			}
		})
	}
	// Two elements in one subtask's list: the first read up to the second.
	src := legacyKafkaConsumer(t, "kafka-in", realLegacyKafkaElements[0].hex)
	b, _ := hex.DecodeString(realLegacyKafkaElements[1].hex)
	src.ListStates[0].Elements = append(src.ListStates[0].Elements, flinkckpttest.ListElement{Data: b})
	s := decodeSources(t, 4, src).Sources[0]
	if s.Err != nil || len(s.Kafka.Splits) != 2 || s.Kafka.Splits[1].Partition != 1 {
		t.Errorf("two elements: %v %+v", s.Err, s.Kafka)
	}
}

// TestLegacyKafkaConsumerRejects: damaged elements and OFFSET_NOT_SET are
// errors naming the state, the element and the field; never a position.
func TestLegacyKafkaConsumerRejects(t *testing.T) {
	for _, tc := range []struct {
		name, hex, want string
	}{
		{"Truncated", "5701899998ff0800016f72646572f3000000", "offset"},
		{"NullObject", "00", "null KafkaTopicPartition"},
		{"ReferenceToEarlier", "5702", "reference marker 2"},
		{"NullTopic", "5701899998ff080000", "not-null marker 0"},
		{"NotSet", "5701899998ff0800016f72646572f3ffffff2ad0922890", "OFFSET_NOT_SET"},
		{"OtherClass", "0101000161e2", "want KafkaTopicPartition"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := legacyKafkaConsumer(t, "kafka-in", tc.hex)
			op, _ := src.Operator(4, nil)
			data, err := flinkckpttest.Encode(&metadata.Checkpoint{Version: 4, CheckpointID: 7, Savepoint: true, Operators: []metadata.Operator{op}})
			if err != nil {
				t.Fatal(err)
			}
			md, err := metadata.Parse(data, nil)
			if err != nil {
				t.Fatal(err)
			}
			st, err := sourcestate.Decode(md, nil)
			if err == nil || len(st.Sources) != 1 {
				t.Fatalf("err %v, %d sources", err, len(st.Sources))
			}
			s := st.Sources[0]
			if s.Err == nil || !strings.Contains(s.Err.Error(), tc.want) || !strings.Contains(s.Err.Error(), `"topic-partition-offset-states" element 0 of subtask 0`) {
				t.Errorf("err %v, want %q", s.Err, tc.want)
			}
			if s.Kafka != nil && len(s.Kafka.Splits) > 0 {
				t.Errorf("splits from a damaged element: %+v", s.Kafka.Splits)
			}
		})
	}
}

// FuzzLegacyKafkaOffset: no element panics the FlinkKafkaConsumer decoder;
// what decodes has a topic Kafka allows, a partition ≥ 0 and a start at an
// offset ≥ 0 or a marker.
func FuzzLegacyKafkaOffset(f *testing.F) {
	for _, e := range realLegacyKafkaElements {
		b, _ := hex.DecodeString(e.hex)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, n, err := sourcestate.ParseLegacyKafkaOffset(data, 0)
		if err != nil {
			return
		}
		if n > len(data) || s.Topic == "" || len(s.Topic) > 249*3 || s.Partition < 0 || s.StartingOffset < sourcestate.OffsetCommitted {
			t.Fatalf("decoded %+v from %d of %d bytes", s, n, len(data))
		}
	})
}
