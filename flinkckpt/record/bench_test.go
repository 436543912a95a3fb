package record_test

import (
	"testing"

	"github.com/resumekit/resumekit/flinkckpt/record"
)

// BenchmarkParseConfigMaps: kubectl output of a job's HA ConfigMaps (three
// entries, each a Java-serialized state handle) read into the store's
// facts.
func BenchmarkParseConfigMaps(b *testing.B) {
	data := readTestdata(b, "F2/configmaps.json")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := record.ParseConfigMaps("cm.json", data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseCompleted: one CompletedCheckpoint file of HA storage,
// written by Flink 1.20.3.
func BenchmarkParseCompleted(b *testing.B) {
	data := readTestdata(b, "F2/ha/completedCheckpoint576ab64d77b0")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := record.ParseCompleted("f", data); err != nil {
			b.Fatal(err)
		}
	}
}
