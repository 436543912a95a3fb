package metadata_test

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
)

// validFile encodes a complete, valid _metadata of version v with
// checkpoint id 0: every later field is well formed, so a field patched in
// it is refused by its own check, not by what follows it.
func validFile(t *testing.T, v int) []byte {
	t.Helper()
	md := flinkckpttest.AllHandles(v, "s3a://b/ck/")
	md.CheckpointID = 0
	data, err := flinkckpttest.Encode(md)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := metadata.Parse(data, nil); err != nil {
		t.Fatalf("version %d does not parse: %v", v, err)
	}
	return data
}

// TestVersionRange: versions 2 and 7 (the range's ends) parse; the same
// bytes marked version 1 or 8 are refused at the version field, naming it.
// The hostile inputs in TestReadMetadataErrors end right after the field,
// so they fail anyway; these do not.
func TestVersionRange(t *testing.T) {
	for _, tc := range []struct{ body, as int }{{2, 1}, {7, 8}, {2, 0}, {7, -1}} {
		data := validFile(t, tc.body)
		binary.BigEndian.PutUint32(data[4:8], uint32(int32(tc.as)))
		_, err := metadata.Parse(data, nil)
		var fe *metadata.FormatError
		if !errors.Is(err, metadata.ErrMalformed) || !errors.As(err, &fe) || fe.Offset != 4 || !strings.Contains(err.Error(), "unsupported version") {
			t.Errorf("a version %d file marked %d: err %v", tc.body, tc.as, err)
		}
	}
}

// TestCheckpointIDRange: ids 0 and 2^62 parse; -1 and 2^62+1 are refused
// at the id field, in files that are otherwise valid.
func TestCheckpointIDRange(t *testing.T) {
	for _, tc := range []struct {
		id  int64
		err string
	}{
		{0, ""},
		{metadata.MaxCheckpointID, ""},
		{-1, "negative checkpoint id -1"},
		{-1 << 63, "negative checkpoint id"},
		{metadata.MaxCheckpointID + 1, "is above 2^62"},
	} {
		data := validFile(t, 4)
		binary.BigEndian.PutUint64(data[8:16], uint64(tc.id))
		md, err := metadata.Parse(data, nil)
		if tc.err == "" {
			if err != nil || md.CheckpointID != tc.id {
				t.Errorf("id %d: %v", tc.id, err)
			}
			continue
		}
		var fe *metadata.FormatError
		if !errors.Is(err, metadata.ErrMalformed) || !errors.As(err, &fe) || fe.Offset != 8 || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("id %d: err %v, want %q at byte 8", tc.id, err, tc.err)
		}
	}
}
