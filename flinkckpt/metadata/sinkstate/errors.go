package sinkstate

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// ErrMalformed is wrapped by every error about the content of committer
// state (check with errors.Is); the error is a [*FormatError], or for the
// state stream's framing a sourcestate.FormatError.
var ErrMalformed = errors.New("sinkstate: malformed committer state")

// FormatError says where and what committer state is malformed.
type FormatError struct {
	// What is the structure being read, e.g. "CommittableCollector v2".
	What string
	// Offset is the byte offset in the element's payload.
	Offset int64
	// Msg says what was wrong.
	Msg string
}

// Error says what was being read, where, and what was wrong.
func (e *FormatError) Error() string {
	return fmt.Sprintf("sinkstate: malformed %s at byte %d: %s", e.What, e.Offset, e.Msg)
}

// Is reports ErrMalformed.
func (e *FormatError) Is(target error) bool { return target == ErrMalformed }

// cursor reads big-endian values from one byte slice with a sticky error.
type cursor struct {
	what    string
	version int32
	buf     []byte
	off     int
	err     error
}

func newCursor(what string, version int32, b []byte) *cursor {
	return &cursor{what: what, version: version, buf: b}
}

func (c *cursor) fail(format string, args ...any) {
	if c.err == nil {
		c.err = &FormatError{What: fmt.Sprintf("%s v%d", c.what, c.version), Offset: int64(c.off), Msg: fmt.Sprintf(format, args...)}
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

func (c *cursor) i32(field string) int32 {
	if !c.need(4, field) {
		return 0
	}
	v := binary.BigEndian.Uint32(c.buf[c.off:])
	c.off += 4
	return int32(v)
}

func (c *cursor) i64(field string) int64 {
	if !c.need(8, field) {
		return 0
	}
	v := binary.BigEndian.Uint64(c.buf[c.off:])
	c.off += 8
	return int64(v)
}

// count reads an int32 count of items of at least min bytes each, checked
// against the bytes left before anything is allocated.
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
	if int64(n)*int64(min) > int64(c.left()) {
		c.off = start
		c.fail("%s: count %d needs at least %d bytes, %d left", field, n, int64(n)*int64(min), c.left())
		return 0
	}
	return int(n)
}

// bytes reads an int32 length and that many bytes (no copy).
func (c *cursor) bytes(field string) []byte {
	n := c.count(field, 1)
	if !c.need(n, field) {
		return nil
	}
	b := c.buf[c.off : c.off+n : c.off+n]
	c.off += n
	return b
}

// end fails unless every byte was read.
func (c *cursor) end() {
	if c.err == nil && c.left() != 0 {
		c.fail("%d trailing bytes", c.left())
	}
}
