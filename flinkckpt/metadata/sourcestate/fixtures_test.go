package sourcestate_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/resumekit/resumekit/flinkckpt/internal/fixtures"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sourcestate"
)

func readFixture(t *testing.T, dir string) *metadata.Checkpoint {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fixtures.Dir(t), dir, "_metadata"))
	if err != nil {
		t.Fatal(err)
	}
	md, err := metadata.Parse(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	return md
}

// The two real KafkaSource savepoints (KafkaSourceMigrationITCase): topic
// "topic", partitions 0–9, every reader split at offset 10, no stopping
// offset; enumerator v1 (assigned partitions) and v3 (splits at -2, assigned).
func TestRealKafkaSavepoints(t *testing.T) {
	for _, tc := range []struct {
		dir         string
		enumVersion int32
	}{
		{"v4-kafka-source-native-savepoint/savepoint-3c7c0a-07c49f841952", 1},
		{"v5-kafka-source-enum3-savepoint/savepoint-246fa1-85f387ecce0c", 3},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			md := readFixture(t, tc.dir)
			st, err := sourcestate.Decode(md, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(st.Sources) != 1 {
				t.Fatalf("%d sources, want 1: %+v", len(st.Sources), st.Sources)
			}
			src := st.Sources[0]
			if src.OperatorID != "cb16aa5adb311e8ac72482def19accbe" || src.Kind != sourcestate.KindKafka || src.SplitVersion != 0 {
				t.Fatalf("source %s kind %s split version %d", src.OperatorID, src.Kind, src.SplitVersion)
			}
			var want []sourcestate.KafkaPosition
			for p := int32(0); p < 10; p++ {
				want = append(want, sourcestate.KafkaPosition{Topic: "topic", Partition: p, Offset: 10})
			}
			got, notes := src.Kafka.Positions()
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("positions (-want +got):\n%s", diff)
			}
			if len(notes) != 0 {
				t.Errorf("notes: %q", notes)
			}
			for _, s := range src.Kafka.Splits {
				if s.StoppingOffset != sourcestate.OffsetNone {
					t.Errorf("%s/%d stopping offset %d", s.Topic, s.Partition, s.StoppingOffset)
				}
			}
			e := src.Kafka.Enumerator
			if e == nil || e.Version != tc.enumVersion || len(e.Partitions) != 10 {
				t.Fatalf("enumerator %+v", e)
			}
			for _, p := range e.Partitions {
				if p.Topic != "topic" || p.Status != sourcestate.StatusAssigned {
					t.Errorf("enumerator partition %+v", p)
				}
				if tc.enumVersion == 3 && (p.Split == nil || p.Split.StartingOffset != sourcestate.OffsetEarliest) {
					t.Errorf("enumerator v3 split %+v, want starting offset -2", p.Split)
				}
			}
		})
	}
}
