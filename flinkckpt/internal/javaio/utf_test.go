package javaio

import "testing"

// The encodings Java's DataOutputStream.writeUTF produces, and what its
// readUTF refuses.
func TestModifiedUTF8(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []byte
		want string
		ok   bool
	}{
		{"ascii", []byte("topic-1"), "topic-1", true},
		{"empty", nil, "", true},
		{"NUL as C0 80", []byte{'a', 0xC0, 0x80, 'b'}, "a\x00b", true},
		{"two bytes", []byte{0xC3, 0xA9}, "é", true},
		{"three bytes", []byte{0xE2, 0x82, 0xAC}, "€", true},
		// U+1F600 as the surrogates D83D DE00, three bytes each.
		{"surrogate pair", []byte{0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80}, "😀", true},
		{"unpaired surrogate", []byte{0xED, 0xA0, 0xBD}, "\uFFFD", true},
		{"raw NUL", []byte{'a', 0}, "", false},
		{"four-byte UTF-8", []byte{0xF0, 0x9F, 0x98, 0x80}, "", false},
		{"truncated", []byte{0xE2, 0x82}, "", false},
		{"bad continuation", []byte{0xC3, 0x29}, "", false},
		{"lone continuation", []byte{0x80}, "", false},
	} {
		got, ok := ModifiedUTF8(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: ModifiedUTF8(% x) = %q, %v; want %q, %v", tc.name, tc.in, got, ok, tc.want, tc.ok)
		}
	}
}
