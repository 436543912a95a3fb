package metadata_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
)

// failReader fails every read: Read must not read an oversized file.
type failReader struct{}

func (failReader) Read([]byte) (int, error) { return 0, errors.New("read called") }

// TestReadWithSize: a known size over the limit is refused before any
// read; a stream shorter or longer than its announced size is still read
// whole (and a longer one still checked against the limit).
func TestReadWithSize(t *testing.T) {
	data, err := flinkckpttest.Encode((&flinkckpttest.Spec{Version: 4, CheckpointID: 3, Operators: 2, Relative: []string{"a"}, FileSize: 4}).Metadata())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := metadata.Read(failReader{}, &metadata.ReadOptions{MaxSize: 100, Size: 101}); !errors.Is(err, metadata.ErrTooLarge) {
		t.Errorf("over the limit: %v", err)
	}
	for _, size := range []int64{int64(len(data)), int64(len(data)) - 10, int64(len(data)) + 10, 1} {
		md, err := metadata.Read(bytes.NewReader(data), &metadata.ReadOptions{Size: size})
		if err != nil || md.CheckpointID != 3 || len(md.Operators) != 2 {
			t.Errorf("size %d of %d: %v", size, len(data), err)
		}
	}
	_, err = metadata.Read(io.MultiReader(bytes.NewReader(data), bytes.NewReader(make([]byte, 200))), &metadata.ReadOptions{Size: int64(len(data)), MaxSize: int64(len(data)) + 100})
	if !errors.Is(err, metadata.ErrTooLarge) {
		t.Errorf("longer than announced and over the limit: %v", err)
	}
}
