package metadata_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/resumekit/resumekit/flinkckpt/internal/fixtures"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
)

// BenchmarkParseLargestFixture parses the largest real _metadata (the Flink
// 1.16 changelog checkpoint, 32 KB).
func BenchmarkParseLargestFixture(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(fixtures.Dir(b), "v4-flink1.16-changelog-checkpoint", "_metadata"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := metadata.Parse(data, nil); err != nil {
			b.Fatal(err)
		}
	}
}
