package metadata

import (
	"encoding/binary"
	"fmt"

	"github.com/resumekit/resumekit/flinkckpt/internal/javaio"
)

// decoder reads big-endian values with a sticky error: after the first
// error every read returns zero values, and loops stop on d.err.
type decoder struct {
	buf   []byte
	off   int
	depth int
	err   error
	md    *Checkpoint
	op    string // id of the operator being read
	// inChangelog: the stream handle being read is a changelog file
	// handle's (FileRef.Changelog).
	inChangelog bool
	str         string // the whole input as a string, for substrings ("" for small inputs)
	slab        []StreamHandle
	// slabSize grows from 8 to 1024 so that small files stay small.
	slabSize int
	files    [][]FileRef // see addFile
	nfiles   int
}

func (d *decoder) fail(what, format string, args ...any) {
	if d.err == nil {
		d.err = &FormatError{Offset: int64(d.off), What: what, Msg: fmt.Sprintf(format, args...)}
	}
}

func (d *decoder) left() int { return len(d.buf) - d.off }

// The read helpers take what is being read in two parts (what, field),
// joined only when an error is reported, so that reading allocates nothing
// for labels.

func (d *decoder) need(n int, what, field string) bool {
	if d.err != nil {
		return false
	}
	if n < 0 || n > d.left() {
		d.fail(what+field, "need %d bytes, %d left", n, d.left())
		return false
	}
	return true
}

func (d *decoder) u8(what, field string) byte {
	if !d.need(1, what, field) {
		return 0
	}
	d.off++
	return d.buf[d.off-1]
}

func (d *decoder) i32(what, field string) int32 {
	if !d.need(4, what, field) {
		return 0
	}
	v := binary.BigEndian.Uint32(d.buf[d.off:])
	d.off += 4
	return int32(v)
}

func (d *decoder) i64(what, field string) int64 {
	if !d.need(8, what, field) {
		return 0
	}
	v := binary.BigEndian.Uint64(d.buf[d.off:])
	d.off += 8
	return int64(v)
}

// count reads an int32 count of elements that take at least min bytes each
// and checks it against the bytes left before anything is allocated.
func (d *decoder) count(what, field string, min int) int {
	start := d.off
	n := d.i32(what, field)
	if d.err != nil {
		return 0
	}
	if n < 0 {
		d.off = start
		d.fail(what+field, "negative count %d", n)
		return 0
	}
	if int64(n)*int64(min) > int64(d.left()) {
		d.off = start
		d.fail(what+field, "count %d needs at least %d bytes, %d left", n, int64(n)*int64(min), d.left())
		return 0
	}
	return int(n)
}

func (d *decoder) bytes(what, field string) []byte {
	n := d.count(what, field, 1)
	if !d.need(n, what, field) {
		return nil
	}
	b := d.buf[d.off : d.off+n : d.off+n]
	d.off += n
	return b
}

func (d *decoder) offsets(what, field string) []int64 {
	n := d.count(what, field, 8)
	if d.err != nil {
		return nil
	}
	return d.longs(n)
}

func (d *decoder) longs(n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(binary.BigEndian.Uint64(d.buf[d.off:]))
		d.off += 8
	}
	return out
}

// utf reads a Java modified UTF-8 string (uint16 length).
func (d *decoder) utf(what, field string) string {
	if !d.need(2, what, field) {
		return ""
	}
	n := int(binary.BigEndian.Uint16(d.buf[d.off:]))
	d.off += 2
	if !d.need(n, what, field) {
		return ""
	}
	b := d.buf[d.off : d.off+n]
	if d.str != "" && javaio.PlainASCII(b) {
		// Substrings of one copy of the file: no allocation per string.
		s := d.str[d.off : d.off+n]
		d.off += n
		return s
	}
	s, ok := javaio.ModifiedUTF8(b)
	if !ok {
		d.fail(what+field, "invalid modified UTF-8")
		return ""
	}
	d.off += n
	return s
}

// newStream returns a zeroed stream handle from a slab, so that a state
// with hundreds of thousands of file handles costs a few allocations.
func (d *decoder) newStream(t HandleType) *StreamHandle {
	if len(d.slab) == 0 {
		d.slabSize = min(max(2*d.slabSize, 8), 1024)
		d.slab = make([]StreamHandle, d.slabSize)
	}
	h := &d.slab[0]
	d.slab = d.slab[1:]
	h.Type = t
	return h
}
