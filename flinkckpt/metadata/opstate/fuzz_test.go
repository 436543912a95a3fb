package opstate_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/resumekit/resumekit/flinkckpt/metadata/opstate"
)

// offsetBytes encodes offsets as the fuzz target reads them: big-endian
// int64s one after the other.
func offsetBytes(offs []int64) []byte {
	var b []byte
	for _, o := range offs {
		b = binary.BigEndian.AppendUint64(b, uint64(o))
	}
	return b
}

type seed struct{ stream, offsets []byte }

// fuzzSeeds are the seeds of FuzzElements: plain and compressed streams,
// issue 31's aliased offsets (one compressed element listed 1,000 times),
// offsets out of order, an offset inside a chunk, overlapping elements.
func fuzzSeeds() []seed {
	var out []seed
	for _, compressed := range []bool{false, true} {
		raw, offs := stream(compressed, element(0, []byte("orders")), element(1, bytes.Repeat([]byte("ab"), 300)), element(2, nil))
		out = append(out, seed{raw, offsetBytes(offs)})
		out = append(out, seed{raw, offsetBytes([]int64{offs[1], offs[0]})})
	}
	big, offs := stream(true, element(0, make([]byte, 64<<10)))
	out = append(out, seed{big, offsetBytes(slices.Repeat(offs, 1000))})
	two, offs := stream(true, element(1, []byte("hello")), element(1, []byte("world")))
	out = append(out, seed{two, offsetBytes([]int64{offs[0], offs[1] + 2})})
	// Two chunks, the first element's length covering both.
	over, _ := stream(true)
	first := make([]byte, 40)
	binary.BigEndian.PutUint32(first, 76)
	binary.BigEndian.PutUint32(first[8:], 68)
	o1 := int64(len(over))
	over = appendChunk(over, first)
	o2 := int64(len(over))
	over = appendChunk(over, element(0, make([]byte, 28)))
	out = append(out, seed{over, offsetBytes([]int64{o1, o2})})
	return out
}

// FuzzElements: a state stream and the offsets a handle lists. No input
// panics; every error wraps ErrMalformed or ErrTooLarge; what is read
// reads back the same from a plain stream written anew; a compressed
// stream never costs more than a bound of its decoded bytes.
func FuzzElements(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s.stream, s.offsets)
	}
	f.Fuzz(func(t *testing.T, raw, ob []byte) {
		var offs []int64
		for len(ob) >= 8 && len(offs) < 4096 {
			offs = append(offs, int64(binary.BigEndian.Uint64(ob)))
			ob = ob[8:]
		}
		got, err := opstate.ReadListElements(raw, "x", offs, 0, 1<<20)
		if err != nil {
			if !errors.Is(err, opstate.ErrMalformed) && !errors.Is(err, opstate.ErrTooLarge) {
				t.Fatalf("error %v wraps neither ErrMalformed nor ErrTooLarge", err)
			}
			return
		}
		var es [][]byte
		for _, e := range got {
			es = append(es, element(e.Version, e.Data))
		}
		again, aoffs := stream(false, es...)
		back, err := opstate.ReadListElements(again, "x", aoffs, 0, 1<<30)
		if err != nil || len(back) != len(got) {
			t.Fatalf("read back: %d elements, %v", len(back), err)
		}
		for i := range got {
			if back[i].Version != got[i].Version || !bytes.Equal(back[i].Data, got[i].Data) {
				t.Fatalf("element %d differs when read back", i)
			}
		}
	})
}

var writeSeeds = os.Getenv("OPSTATE_WRITE_SEEDS") != ""

// TestFuzzSeedCorpus keeps testdata/fuzz/FuzzElements in step with
// fuzzSeeds (OPSTATE_WRITE_SEEDS=1 rewrites it).
func TestFuzzSeedCorpus(t *testing.T) {
	q := func(b []byte) string { return fmt.Sprintf("[]byte(%s)", strconv.Quote(string(b))) }
	for i, s := range fuzzSeeds() {
		want := "go test fuzz v1\n" + q(s.stream) + "\n" + q(s.offsets) + "\n"
		path := filepath.Join("testdata", "fuzz", "FuzzElements", fmt.Sprintf("seed-%02d", i))
		if writeSeeds {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("%s is stale (run with OPSTATE_WRITE_SEEDS=1)", path)
		}
	}
}
