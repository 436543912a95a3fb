package javaio

import (
	"encoding/binary"
	"fmt"
)

// Cursor reads big-endian values (Java's DataOutputStream) from one byte
// slice with a sticky error: after the first error every read returns a
// zero value, and loops stop on Err. It holds bytes only. The parsers of
// operator state (source readers, sink committers) embed it; NewErr makes
// their own error type.
type Cursor struct {
	// What is the structure being read, for errors; with HasVersion,
	// " v<Version>" is appended (formatted only when an error is reported).
	What       string
	Version    int32
	HasVersion bool
	Buf        []byte
	Off        int
	Err        error
	// NewErr makes the error Fail records: what is being read, the byte
	// offset, the message.
	NewErr func(what string, off int64, msg string) error
}

// Label is what is being read, for errors.
func (c *Cursor) Label() string {
	if c.HasVersion {
		return fmt.Sprintf("%s v%d", c.What, c.Version)
	}
	return c.What
}

// Fail records the first error, at the current offset.
func (c *Cursor) Fail(format string, args ...any) {
	if c.Err == nil {
		c.Err = c.NewErr(c.Label(), int64(c.Off), fmt.Sprintf(format, args...))
	}
}

// Left is the number of bytes not read yet.
func (c *Cursor) Left() int { return len(c.Buf) - c.Off }

// Need reports whether n more bytes are there, failing when not.
func (c *Cursor) Need(n int, field string) bool {
	if c.Err != nil {
		return false
	}
	if n < 0 || n > c.Left() {
		c.Fail("%s: need %d bytes, %d left", field, n, c.Left())
		return false
	}
	return true
}

// U8 reads one byte.
func (c *Cursor) U8(field string) byte {
	if !c.Need(1, field) {
		return 0
	}
	c.Off++
	return c.Buf[c.Off-1]
}

// Boolean reads a Java boolean: one byte, 0 or 1.
func (c *Cursor) Boolean(field string) bool {
	start := c.Off
	b := c.U8(field)
	if c.Err == nil && b > 1 {
		c.Off = start
		c.Fail("%s: boolean byte %d", field, b)
	}
	return b == 1
}

// I32 reads a big-endian int32.
func (c *Cursor) I32(field string) int32 {
	if !c.Need(4, field) {
		return 0
	}
	v := binary.BigEndian.Uint32(c.Buf[c.Off:])
	c.Off += 4
	return int32(v)
}

// U16 reads a big-endian uint16.
func (c *Cursor) U16(field string) uint16 {
	if !c.Need(2, field) {
		return 0
	}
	v := binary.BigEndian.Uint16(c.Buf[c.Off:])
	c.Off += 2
	return v
}

// I64 reads a big-endian int64.
func (c *Cursor) I64(field string) int64 {
	if !c.Need(8, field) {
		return 0
	}
	v := binary.BigEndian.Uint64(c.Buf[c.Off:])
	c.Off += 8
	return int64(v)
}

// Count reads an int32 count of items of at least min bytes each (at least
// 1) and checks it against the bytes left before anything is allocated.
func (c *Cursor) Count(field string, min int) int {
	start := c.Off
	n := c.I32(field)
	if c.Err != nil {
		return 0
	}
	if n < 0 {
		c.Off = start
		c.Fail("%s: negative count %d", field, n)
		return 0
	}
	if left := c.Left(); int64(n)*int64(max(min, 1)) > int64(left) {
		c.Off = start // the error points at the count; the bytes left are those after it
		c.Fail("%s: count %d needs at least %d bytes, %d left", field, n, int64(n)*int64(max(min, 1)), left)
		return 0
	}
	return int(n)
}

// Take returns the next n bytes (no copy).
func (c *Cursor) Take(n int, field string) []byte {
	if !c.Need(n, field) {
		return nil
	}
	b := c.Buf[c.Off : c.Off+n : c.Off+n]
	c.Off += n
	return b
}

// Bytes reads an int32 length and that many bytes.
func (c *Cursor) Bytes(field string) []byte {
	n := c.Count(field, 1)
	return c.Take(n, field)
}

// UTF reads a Java modified UTF-8 string (uint16 length).
func (c *Cursor) UTF(field string) string {
	n := int(c.U16(field))
	b := c.Take(n, field)
	if c.Err != nil {
		return ""
	}
	s, ok := ModifiedUTF8(b)
	if !ok {
		c.Off -= n
		c.Fail("%s: invalid modified UTF-8", field)
		return ""
	}
	return s
}

// End fails unless every byte was read.
func (c *Cursor) End() {
	if c.Err == nil && c.Left() != 0 {
		c.Fail("%d trailing bytes", c.Left())
	}
}
