package opstate

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand"
	"testing"

	"github.com/klauspost/compress/snappy"
)

// The package's Snappy decoding reads what an independent framed
// encoder writes (klauspost/compress's snappy.Writer: the same framing
// format xerial writes for Flink), across chunk boundaries, with
// compressible and incompressible data.
func TestSnappyAgainstKlauspost(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	random := make([]byte, 150_000)
	rng.Read(random)
	elements := [][]byte{
		[]byte("small"),
		bytes.Repeat([]byte("orders-topic "), 20_000), // compressible, several chunks
		random, // incompressible: uncompressed chunks
		{},
	}
	var raw bytes.Buffer
	raw.Write([]byte{0, 0, 0, 6, 1}) // proxy header v6, compressed
	w := snappy.NewBufferedWriter(&raw)
	var offsets []int64
	for i, data := range elements {
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		offsets = append(offsets, int64(raw.Len()))
		elem := binary.BigEndian.AppendUint32(nil, uint32(len(data)+8))
		elem = binary.BigEndian.AppendUint32(elem, uint32(i))
		elem = binary.BigEndian.AppendUint32(elem, uint32(len(data)))
		if _, err := w.Write(append(elem, data...)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	splits, err := ReadListElements(raw.Bytes(), "test", offsets, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(splits) != len(elements) {
		t.Fatalf("%d splits, want %d", len(splits), len(elements))
	}
	for i, s := range splits {
		if s.Version != int32(i) || !bytes.Equal(s.Data, elements[i]) {
			t.Errorf("element %d: version %d, %d bytes, want %d", i, s.Version, len(s.Data), len(elements[i]))
		}
	}
	// A flipped byte in a chunk fails the checksum: never misread.
	bad := bytes.Clone(raw.Bytes())
	bad[offsets[1]+20] ^= 0x40
	if _, err := ReadListElements(bad, "test", offsets[1:2], 0, 0); err == nil {
		t.Error("corrupt chunk read without error")
	}
}

func TestSnappyBlockRejects(t *testing.T) {
	for name, block := range map[string][]byte{
		"no varint":        {},
		"too long":         {0xff, 0xff, 0x7f},
		"copy before data": {4, 0x01 | 0<<2, 1},
		"short literal":    {5, 4 << 2, 'a'},
		"longer than said": {1, 1 << 2, 'a', 'b'},
	} {
		if _, err := decodeBlock(block, []byte("a")); err == nil {
			t.Errorf("%s: accepted", name)
		} else if !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: %v, want ErrMalformed", name, err)
		}
	}
}
