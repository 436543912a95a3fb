package metadata_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/resumekit/resumekit/flinkckpt/internal/fixtures"
	"github.com/resumekit/resumekit/flinkckpt/metadata"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
)

// FuzzReadMetadata checks that no input panics the parser, that an error
// is ErrMalformed (or ErrTooLarge), that what parses has a supported
// version (2 to 7), a checkpoint id in 0..2^62 and was read to its last
// byte, and that it survives a round trip through the project's encoder. Seeds: the
// real fixtures (when present), every handle type in every version, and
// the corpus in testdata/fuzz/FuzzReadMetadata. (The round trip compares
// encodings, not structures: cmp.Diff of a large state is too slow to fuzz.)
func FuzzReadMetadata(f *testing.F) {
	if dir := fixtures.DirNoSkip(); dir != "" {
		for _, fx := range fixtures.Flink {
			if data, err := os.ReadFile(filepath.Join(dir, fx.Dir, "_metadata")); err == nil {
				f.Add(data)
			}
		}
	}
	for v := 2; v <= 7; v++ {
		if data, err := flinkckpttest.Encode(flinkckpttest.AllHandles(v, "s3a://b/ck/")); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		md, err := metadata.Parse(data, &metadata.ReadOptions{MaxSize: 1 << 20})
		if err != nil {
			if !errors.Is(err, metadata.ErrMalformed) && !errors.Is(err, metadata.ErrTooLarge) {
				t.Fatalf("error %v is neither malformed nor too large", err)
			}
			return
		}
		// Whatever parses is in the supported range: a version the decoder
		// knows, a checkpoint id Flink can have written, every byte read.
		if md.Version < 2 || md.Version > 7 {
			t.Fatalf("parsed version %d, supported are 2 to 7", md.Version)
		}
		if md.CheckpointID < 0 || md.CheckpointID > metadata.MaxCheckpointID {
			t.Fatalf("parsed checkpoint id %d, outside 0..2^62", md.CheckpointID)
		}
		if md.Size != int64(len(data)) {
			t.Fatalf("parsed %d of %d bytes without an error", md.Size, len(data))
		}
		again, err := flinkckpttest.Encode(md)
		if err != nil {
			return // e.g. a string the encoder cannot represent; parsing was fine
		}
		md2, err := metadata.Parse(again, nil)
		if err != nil {
			t.Fatalf("re-encoded metadata does not parse: %v", err)
		}
		third, err := flinkckpttest.Encode(md2)
		if err != nil || !bytes.Equal(again, third) || len(md2.Files) != len(md.Files) || md2.Savepoint != md.Savepoint {
			t.Fatalf("round trip differs: %v; %d vs %d bytes, %d vs %d files", err, len(again), len(third), len(md.Files), len(md2.Files))
		}
	})
}
