package metadata_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/internal/fixtures"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
)

func header(version int32) []byte {
	b := binary.BigEndian.AppendUint32(nil, 0x4960672D)
	b = binary.BigEndian.AppendUint32(b, uint32(version))
	return binary.BigEndian.AppendUint64(b, 7)
}

// allocBytes returns the bytes allocated while f runs.
func allocBytes(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// loadFixtures returns every fixture's _metadata bytes by folder.
func loadFixtures(t testing.TB) map[string][]byte {
	root := fixtures.Dir(t)
	out := map[string][]byte{}
	for _, fx := range fixtures.Flink {
		data, err := os.ReadFile(filepath.Join(root, fx.Dir, "_metadata"))
		if err != nil {
			t.Fatal(err)
		}
		out[fx.Dir] = data
	}
	return out
}

// TestTruncatedFixturesFail cuts every fixture at every byte (under -race
// at every 16th and near both ends): each cut is an error with an offset
// inside the cut, never a panic.
func TestTruncatedFixturesFail(t *testing.T) {
	for name, data := range loadFixtures(t) {
		for n := 0; n < len(data); n++ {
			if raceEnabled && n > 256 && n < len(data)-256 && n%16 != 0 {
				continue
			}
			md, err := metadata.Parse(data[:n], nil)
			var fe *metadata.FormatError
			if err == nil || !errors.As(err, &fe) || !errors.Is(err, metadata.ErrMalformed) {
				t.Fatalf("%s cut at %d of %d: got %v, %v; want a *FormatError", name, n, len(data), md, err)
			}
			if fe.Offset < 0 || fe.Offset > int64(n) {
				t.Fatalf("%s cut at %d: error offset %d out of range: %v", name, n, fe.Offset, err)
			}
		}
	}
}

// TestFlippedBytesNeverPanic flips bytes of every fixture — every 3rd byte
// inverted, every 11th with its top or bottom bit flipped (8 times sparser
// under -race); parsing may succeed or fail but must return.
func TestFlippedBytesNeverPanic(t *testing.T) {
	errs := 0
	for name, data := range loadFixtures(t) {
		buf := bytes.Clone(data)
		stride := 1
		if raceEnabled {
			stride = 8
		}
		for i := range buf {
			if i%stride != 0 {
				continue
			}
			for _, mask := range []byte{0xFF, 0x80, 0x01} {
				if (mask == 0xFF && (i/stride)%3 != 0) || (mask != 0xFF && (i/stride)%11 != 0) {
					continue
				}
				buf[i] ^= mask
				func() {
					defer func() {
						if r := recover(); r != nil {
							t.Fatalf("%s: byte %d ^ %#x: panic %v", name, i, mask, r)
						}
					}()
					if _, err := metadata.Parse(buf, nil); err != nil {
						errs++
					}
				}()
				buf[i] ^= mask
			}
		}
	}
	if errs == 0 {
		t.Error("no flipped byte was detected at all")
	}
}

// header returns a v3 _metadata prefix: magic, version, checkpoint id.
// TestHugeLengthFieldsRefusedWithoutAllocating feeds counts and lengths of
// 2^31-1 (and negative ones) in every place a count is read: each is an
// error naming the offset, and parsing allocates a few KiB at most.
func TestHugeLengthFieldsRefusedWithoutAllocating(t *testing.T) {
	big := binary.BigEndian.AppendUint32(nil, 0x7FFFFFFF)
	neg := binary.BigEndian.AppendUint32(nil, 0x80000000)
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	i32 := func(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }
	opID := bytes.Repeat([]byte{0xAB}, 16)
	// operator with one subtask whose managed keyed handle is key groups (3)
	subtaskPrefix := cat(header(3), i32(0), i32(1), opID, i32(1), i32(128), []byte{0}, i32(1), i32(0), i32(0), i32(0))
	cases := map[string][]byte{
		"master state count":                      cat(header(3), big),
		"negative master count":                   cat(header(3), neg),
		"master state length":                     cat(header(3), i32(1), binary.BigEndian.AppendUint32(nil, 0xC96B1696), big),
		"operator count":                          cat(header(3), i32(0), big),
		"subtask count":                           cat(header(3), i32(0), i32(1), opID, i32(1), i32(128), []byte{0}, big),
		"key group count":                         cat(subtaskPrefix, []byte{3}, i32(0), big),
		"byte stream length":                      cat(subtaskPrefix, []byte{3}, i32(0), i32(0), []byte{1}, []byte{0, 1, 'x'}, big),
		"incremental shared list":                 cat(subtaskPrefix, []byte{5}, make([]byte, 8), []byte{0, 0}, i32(0), i32(1), []byte{0}, big),
		"utf length":                              cat(subtaskPrefix, []byte{6}, []byte{0xFF, 0xFF}),
		"file size 2^63 is fine but path missing": cat(subtaskPrefix, []byte{2}, bytes.Repeat([]byte{0x7F}, 8)),
	}
	for name, data := range cases {
		var err error
		n := allocBytes(func() { _, err = metadata.Parse(data, nil) })
		if !errors.Is(err, metadata.ErrMalformed) || !strings.Contains(err.Error(), "at byte") {
			t.Errorf("%s: err %v", name, err)
		}
		if n > 64<<10 {
			t.Errorf("%s: allocated %d bytes", name, n)
		}
	}
}

// TestDeepNestingRefused nests key-group stream handles 100,000 deep: an
// error, not a stack overflow.
func TestDeepNestingRefused(t *testing.T) {
	i32 := func(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }
	data := bytes.Join([][]byte{header(3), i32(0), i32(1), bytes.Repeat([]byte{0xCD}, 16), i32(1), i32(1)}, nil)
	for i := 0; i < 100000; i++ {
		data = append(data, 3, 0, 0, 0, 0, 0, 0, 0, 0) // coordinator: key groups, start 0, count 0, nested…
	}
	_, err := metadata.Parse(data, nil)
	if !errors.Is(err, metadata.ErrMalformed) || !strings.Contains(err.Error(), "nested deeper than") {
		t.Errorf("err %v", err)
	}
}

// endless yields zeros after a valid header, like a 10 GB object would.
type endless struct{ head []byte }

func (e *endless) Read(p []byte) (int, error) {
	if len(e.head) > 0 {
		n := copy(p, e.head)
		e.head = e.head[n:]
		return n, nil
	}
	clear(p)
	return len(p), nil
}

// TestHugeStreamRefusedWithBoundedMemory reads from an endless stream (a
// "10 GB" _metadata) with a 1 MiB limit: ErrTooLarge after reading at most
// the limit, with allocations bounded by a small multiple of it.
func TestHugeStreamRefusedWithBoundedMemory(t *testing.T) {
	var err error
	n := allocBytes(func() {
		_, err = metadata.Read(&endless{head: header(4)}, &metadata.ReadOptions{MaxSize: 1 << 20})
	})
	if !errors.Is(err, metadata.ErrTooLarge) {
		t.Errorf("err %v", err)
	}
	if n > 8<<20 {
		t.Errorf("allocated %d bytes for a 1 MiB limit", n)
	}
	if _, err := metadata.Parse(make([]byte, 2<<20), &metadata.ReadOptions{MaxSize: 1 << 20}); !errors.Is(err, metadata.ErrTooLarge) {
		t.Errorf("in-memory: err %v", err)
	}
}

func TestReadMetadataErrors(t *testing.T) {
	for name, data := range map[string][]byte{
		"empty":          nil,
		"not flink":      []byte("PK\x03\x04 a zip file, not a checkpoint"),
		"version 1":      append(binary.BigEndian.AppendUint32(nil, 0x4960672D), 0, 0, 0, 1),
		"version 99":     append(binary.BigEndian.AppendUint32(nil, 0x4960672D), 0, 0, 0, 99),
		"negative id":    append(binary.BigEndian.AppendUint32(nil, 0x4960672D), 0, 0, 0, 3, 0xFF, 0, 0, 0, 0, 0, 0, 0),
		"v3 trailing":    append(append(header(3), 0, 0, 0, 0, 0, 0, 0, 0), 1),
		"v4 no props":    append(header(4), 0, 0, 0, 0, 0, 0, 0, 0),
		"v4 junk props":  append(append(header(4), 0, 0, 0, 0, 0, 0, 0, 0), 0xAC, 0xED, 0, 5, 0x55),
		"v4 extra props": append(append(append(header(4), 0, 0, 0, 0, 0, 0, 0, 0), flinkckpttest.Properties(false, "", false)...), 0x70),
	} {
		if _, err := metadata.Read(bytes.NewReader(data), nil); !errors.Is(err, metadata.ErrMalformed) {
			t.Errorf("%s: err %v", name, err)
		}
	}
	if _, err := metadata.Read(iotestErr{}, nil); err == nil || errors.Is(err, metadata.ErrMalformed) {
		t.Errorf("reader error: %v", err)
	}
}

type iotestErr struct{}

func (iotestErr) Read([]byte) (int, error) { return 0, io.ErrUnexpectedEOF }
