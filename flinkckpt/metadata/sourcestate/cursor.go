package sourcestate

import (
	"encoding/binary"
	"fmt"

	"github.com/resumekit/resumekit/flinkckpt/internal/javaio"
)

// cursor reads big-endian values (Java's DataOutputStream) from one byte
// slice with a sticky error: after the first error every read returns a
// zero value and loops stop on c.err. It holds bytes only.
type cursor struct {
	what string // the structure being read, for errors
	// version, when set, is appended to what in errors (" v<n>"): the
	// label is only formatted when an error is reported.
	version    int32
	hasVersion bool
	buf        []byte
	off        int
	err        error
}

func newCursor(what string, b []byte) *cursor { return &cursor{what: what, buf: b} }

func newVersionedCursor(what string, version int32, b []byte) *cursor {
	return &cursor{what: what, version: version, hasVersion: true, buf: b}
}

// label is what is being read, for errors.
func (c *cursor) label() string {
	if c.hasVersion {
		return fmt.Sprintf("%s v%d", c.what, c.version)
	}
	return c.what
}

func (c *cursor) fail(format string, args ...any) {
	if c.err == nil {
		c.err = &FormatError{What: c.label(), Offset: int64(c.off), Msg: fmt.Sprintf(format, args...)}
	}
}

func (c *cursor) left() int { return len(c.buf) - c.off }

func (c *cursor) need(n int, field string) bool {
	if c.err != nil {
		return false
	}
	if n < 0 || n > c.left() {
		c.fail("%s: need %d bytes, %d left", field, n, c.left())
		return false
	}
	return true
}

func (c *cursor) u8(field string) byte {
	if !c.need(1, field) {
		return 0
	}
	c.off++
	return c.buf[c.off-1]
}

func (c *cursor) boolean(field string) bool {
	start := c.off
	b := c.u8(field)
	if c.err == nil && b > 1 {
		c.off = start
		c.fail("%s: boolean byte %d", field, b)
	}
	return b == 1
}

func (c *cursor) i32(field string) int32 {
	if !c.need(4, field) {
		return 0
	}
	v := binary.BigEndian.Uint32(c.buf[c.off:])
	c.off += 4
	return int32(v)
}

func (c *cursor) u16(field string) uint16 {
	if !c.need(2, field) {
		return 0
	}
	v := binary.BigEndian.Uint16(c.buf[c.off:])
	c.off += 2
	return v
}

func (c *cursor) i64(field string) int64 {
	if !c.need(8, field) {
		return 0
	}
	v := binary.BigEndian.Uint64(c.buf[c.off:])
	c.off += 8
	return int64(v)
}

// count reads an int32 count of items of at least min bytes each and
// checks it against the bytes left before anything is allocated.
func (c *cursor) count(field string, min int) int {
	start := c.off
	n := c.i32(field)
	if c.err != nil {
		return 0
	}
	if n < 0 {
		c.off = start
		c.fail("%s: negative count %d", field, n)
		return 0
	}
	if int64(n)*int64(max(min, 1)) > int64(c.left()) {
		c.off = start
		c.fail("%s: count %d needs at least %d bytes, %d left", field, n, int64(n)*int64(max(min, 1)), c.left())
		return 0
	}
	return int(n)
}

// take returns the next n bytes (no copy).
func (c *cursor) take(n int, field string) []byte {
	if !c.need(n, field) {
		return nil
	}
	b := c.buf[c.off : c.off+n : c.off+n]
	c.off += n
	return b
}

// bytes reads an int32 length and that many bytes.
func (c *cursor) bytes(field string) []byte {
	n := c.count(field, 1)
	return c.take(n, field)
}

// utf reads a Java modified UTF-8 string (uint16 length).
func (c *cursor) utf(field string) string {
	n := int(c.u16(field))
	b := c.take(n, field)
	if c.err != nil {
		return ""
	}
	s, ok := javaio.ModifiedUTF8(b)
	if !ok {
		c.off -= n
		c.fail("%s: invalid modified UTF-8", field)
		return ""
	}
	return s
}

// end fails unless every byte was read.
func (c *cursor) end() {
	if c.err == nil && c.left() != 0 {
		c.fail("%d trailing bytes", c.left())
	}
}
