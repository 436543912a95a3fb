package opstate_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"runtime"
	"slices"
	"testing"

	"github.com/resumekit/resumekit/flinkckpt/metadata/opstate"
)

// allocated returns the bytes f allocates (runtime.MemStats.TotalAlloc).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// Issue 31 (Snappy offset aliasing): one compressed element of 16 MiB whose
// offset the handle lists 1,000 times was decoded 1,000 times into live
// buffers (4.3 GB at K=40 for a 3.4 MB checkpoint). Offsets that are not
// strictly increasing are refused before anything is decoded.
func TestAliasedOffsetsRefused(t *testing.T) {
	big := element(0, make([]byte, 16<<20)) // zeros: compresses ~20:1
	raw, offs := stream(true, big)
	aliased := slices.Repeat(offs, 1000)
	var err error
	n := allocated(func() { _, err = opstate.ReadListElements(raw, "SourceReaderState", aliased, 3, 0) })
	var fe *opstate.FormatError
	if !errors.As(err, &fe) || !errors.Is(err, opstate.ErrMalformed) || !bytes.Contains([]byte(err.Error()), []byte("strictly increasing")) {
		t.Fatalf("err %v, want a FormatError about offsets not strictly increasing", err)
	}
	if n > 1<<20 {
		t.Errorf("refusing the aliased offsets allocated %d bytes, want under 1 MiB", n)
	}
	// Decreasing offsets are refused too.
	two, offs2 := stream(true, element(0, []byte("a")), element(0, []byte("b")))
	if _, err := opstate.ReadListElements(two, "x", []int64{offs2[1], offs2[0]}, 0, 0); !errors.Is(err, opstate.ErrMalformed) {
		t.Errorf("decreasing offsets: %v", err)
	}
}

// Strictly increasing offsets whose elements each claim the rest of the
// stream (every element overlapping all those after it) are decoded once:
// the allocation is bounded by the decoded stream, not by elements ×
// stream (200 chunks of 64 KiB would cost 1.3 GB decoded per offset).
func TestOverlappingElementsDecodedOnce(t *testing.T) {
	const chunks = 200
	var raw []byte
	raw, _ = stream(true)
	var offs []int64
	for i := range chunks {
		data := make([]byte, 64<<10)
		l := (chunks-i)*(64<<10) - 4
		binary.BigEndian.PutUint32(data, uint32(l))
		binary.BigEndian.PutUint32(data[8:], uint32(l-8))
		offs = append(offs, int64(len(raw)))
		raw = appendChunk(raw, data)
	}
	var elems []opstate.Element
	var err error
	n := allocated(func() { elems, err = opstate.ReadListElements(raw, "streaming_committer_raw_states", offs, 0, 0) })
	if err != nil || len(elems) != chunks {
		t.Fatalf("%d elements, err %v", len(elems), err)
	}
	for i, e := range elems {
		if want := (chunks-i)*(64<<10) - 12; len(e.Data) != want {
			t.Fatalf("element %d: %d bytes, want %d", i, len(e.Data), want)
		}
	}
	decoded := uint64(chunks * 64 << 10)
	if n > 3*decoded {
		t.Errorf("allocated %d bytes for %d decoded, want at most 3×", n, decoded)
	}
}

// The bytes decoded out of one snapshot's compressed streams are bounded
// together (Options.MaxDecodedSize), and each stream by MaxStreamSize.
func TestDecodedBytesBounded(t *testing.T) {
	raw, offs := stream(true, element(0, make([]byte, 300<<10)))
	b := (&opstate.Options{MaxDecodedSize: 500 << 10}).NewBudget()
	for i, wantErr := range []bool{false, true} {
		s, err := opstate.Open(raw, b, offs)
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.Elements("x", "element", offs, 0)
		if got := errors.Is(err, opstate.ErrTooLarge); got != wantErr {
			t.Errorf("stream %d: err %v, want ErrTooLarge %v", i, err, wantErr)
		}
	}
	// One stream over MaxStreamSize: refused, whatever the element says.
	s, err := opstate.Open(raw, (&opstate.Options{MaxStreamSize: 100 << 10}).NewBudget(), offs)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.At(offs[0], 4, "x"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Elements("x", "element", offs, 0); !errors.Is(err, opstate.ErrTooLarge) {
		t.Errorf("err %v, want ErrTooLarge", err)
	}
}

// A decode whose context ended stops at the next element or chunk check.
func TestContextStopsDecode(t *testing.T) {
	elems := make([][]byte, 3000)
	for i := range elems {
		elems[i] = element(0, []byte("x"))
	}
	raw, offs := stream(true, elems...)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s, err := opstate.Open(raw, (&opstate.Options{Context: ctx}).NewBudget(), offs)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Elements("x", "element", offs, 0)
	if !errors.Is(err, context.Canceled) || len(got) != 0 {
		t.Errorf("%d elements, err %v, want context.Canceled before any", len(got), err)
	}
}

// An offset in the middle of a chunk is no element start (Flink flushes
// before every element): refused, naming the offset.
func TestOffsetInsideChunk(t *testing.T) {
	raw, offs := stream(true, element(1, []byte("hello")), element(1, []byte("world")))
	_, err := opstate.ReadListElements(raw, "x", []int64{offs[0], offs[1] + 2}, 0, 0)
	if !errors.Is(err, opstate.ErrMalformed) || !bytes.Contains([]byte(err.Error()), []byte("not the start of a snappy chunk")) {
		t.Errorf("err %v", err)
	}
}

// Plain and compressed streams read alike; the elements are the payloads.
func TestPlainAndCompressed(t *testing.T) {
	want := []opstate.Element{{Subtask: 2, Version: 1, Data: []byte("orders")}, {Subtask: 2, Version: 3, Data: bytes.Repeat([]byte("ab"), 70_000)}, {Subtask: 2, Version: 0, Data: []byte{}}}
	for _, compressed := range []bool{false, true} {
		var es [][]byte
		for _, e := range want {
			es = append(es, element(e.Version, e.Data))
		}
		raw, offs := stream(compressed, es...)
		got, err := opstate.ReadListElements(raw, "x", offs, 2, 0)
		if err != nil || len(got) != len(want) {
			t.Fatalf("compressed %v: %d elements, err %v", compressed, len(got), err)
		}
		for i := range want {
			if got[i].Subtask != 2 || got[i].Version != want[i].Version || !bytes.Equal(got[i].Data, want[i].Data) {
				t.Errorf("compressed %v: element %d: %+v", compressed, i, got[i].Version)
			}
		}
	}
}
