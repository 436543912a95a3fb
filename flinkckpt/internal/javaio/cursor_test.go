package javaio

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func cursorOf(b ...byte) *Cursor {
	return &Cursor{What: "thing", Version: 2, HasVersion: true, Buf: b,
		NewErr: func(what string, off int64, msg string) error { return fmt.Errorf("%s at %d: %s", what, off, msg) }}
}

// TestCursorReads: values in order, then End with nothing left.
func TestCursorReads(t *testing.T) {
	c := cursorOf(0, 0, 0, 7, 1, 0, 2, 'h', 'i', 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 1, 'x')
	if v := c.I32("a"); v != 7 {
		t.Errorf("I32 %d", v)
	}
	if !c.Boolean("b") {
		t.Error("Boolean false")
	}
	if s := c.UTF("c"); s != "hi" {
		t.Errorf("UTF %q", s)
	}
	if v := c.I64("d"); v != 9 {
		t.Errorf("I64 %d", v)
	}
	if b := c.Bytes("e"); string(b) != "x" {
		t.Errorf("Bytes %q", b)
	}
	c.End()
	if c.Err != nil {
		t.Fatal(c.Err)
	}
}

// TestCursorRejects: each bad input fails at the offset of the bad field,
// naming the structure with its version, and the error sticks: later reads
// return zero values and do not move.
func TestCursorRejects(t *testing.T) {
	for _, tc := range []struct {
		name string
		buf  []byte
		read func(c *Cursor)
		want string
	}{
		{"Short", []byte{0, 0}, func(c *Cursor) { c.I32("n") }, "thing v2 at 0: n: need 4 bytes, 2 left"},
		{"NegativeCount", []byte{0xff, 0xff, 0xff, 0xff}, func(c *Cursor) { c.Count("items", 1) }, "at 0: items: negative count -1"},
		{"CountAboveBytesLeft", []byte{0, 0, 0, 3, 1, 2}, func(c *Cursor) { c.Count("items", 1) }, "at 0: items: count 3 needs at least 3 bytes, 2 left"},
		{"CountOfZeroSizedItems", []byte{0, 0, 0, 3}, func(c *Cursor) { c.Count("items", 0) }, "count 3 needs at least 3 bytes, 0 left"},
		{"Boolean", []byte{2}, func(c *Cursor) { c.Boolean("flag") }, "at 0: flag: boolean byte 2"},
		{"BadUTF", []byte{0, 1, 0xff}, func(c *Cursor) { c.UTF("name") }, "at 2: name: invalid modified UTF-8"},
		{"Trailing", []byte{0, 0, 0, 1, 5}, func(c *Cursor) { c.I32("n"); c.End() }, "at 4: 1 trailing bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cursorOf(tc.buf...)
			tc.read(c)
			if c.Err == nil || !strings.Contains(c.Err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", c.Err, tc.want)
			}
			first, off := c.Err, c.Off
			if v := c.I32("after"); v != 0 || c.Off != off || !errors.Is(c.Err, first) {
				t.Errorf("after the error: %d at %d (%v), want 0 at %d with the first error", v, c.Off, c.Err, off)
			}
		})
	}
}
