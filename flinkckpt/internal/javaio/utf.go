// Package javaio holds what the pure Flink decoders (flinkckpt/metadata and
// flinkckpt/metadata/sourcestate) share about Java's DataOutput encoding:
// its modified UTF-8 strings (DataOutputStream.writeUTF). It imports only
// the standard library, as those packages must.
package javaio

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// PlainASCII reports whether b is ASCII without NUL: bytes that modified
// UTF-8 decodes to themselves (it never holds a raw NUL, which it writes
// as C0 80).
func PlainASCII(b []byte) bool {
	for _, c := range b {
		if c == 0 || c >= 0x80 {
			return false
		}
	}
	return true
}

// ModifiedUTF8 decodes Java's modified UTF-8 (the bytes of a writeUTF
// string after its uint16 length): one- to three-byte sequences of UTF-16
// code units, NUL as C0 80, a supplementary character as its two
// surrogates. ok is false for bytes Java's readUTF rejects (a raw NUL, a
// four-byte sequence, a truncated or malformed sequence). An unpaired
// surrogate becomes U+FFFD.
func ModifiedUTF8(b []byte) (s string, ok bool) {
	if PlainASCII(b) {
		return string(b), true
	}
	u := make([]uint16, 0, len(b))
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c == 0:
			return "", false
		case c < 0x80:
			u = append(u, uint16(c))
			i++
		case c&0xE0 == 0xC0:
			if i+1 >= len(b) || b[i+1]&0xC0 != 0x80 {
				return "", false
			}
			u = append(u, uint16(c&0x1F)<<6|uint16(b[i+1]&0x3F))
			i += 2
		case c&0xF0 == 0xE0:
			if i+2 >= len(b) || b[i+1]&0xC0 != 0x80 || b[i+2]&0xC0 != 0x80 {
				return "", false
			}
			u = append(u, uint16(c&0x0F)<<12|uint16(b[i+1]&0x3F)<<6|uint16(b[i+2]&0x3F))
			i += 3
		default:
			return "", false
		}
	}
	var sb strings.Builder
	sb.Grow(len(b))
	for _, r := range utf16.Decode(u) {
		if r == utf8.RuneError {
			r = '\uFFFD'
		}
		sb.WriteRune(r)
	}
	return sb.String(), true
}
