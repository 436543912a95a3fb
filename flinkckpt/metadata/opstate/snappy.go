package opstate

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"

	"github.com/klauspost/compress/snappy"
)

// Flink compresses operator state (execution.checkpointing.snapshot-compression)
// with xerial's SnappyFramedOutputStream, blocks of 64 KiB
// (SnappyStreamCompressionDecorator). The state stream holds the Snappy
// framing format (github.com/google/snappy framing_format.txt): after the
// serialization proxy's header and state meta infos comes the stream
// identifier chunk, then chunks of type byte, 3-byte little-endian length,
// and data. Because PartitionableListState records every element's offset
// with getPos(), which flushes the compressor, every offset is the start of
// a chunk; the restore path seeks there and reads on
// (CompressibleFSDataInputStream).
//
// A Stream walks the chunks once, front to back from the lowest offset
// declared, noting where each declared offset's chunk starts in the
// decoded bytes; an element is a slice of those. Blocks are decoded by
// github.com/klauspost/compress/snappy and checked against their masked
// CRC-32C; reserved chunk types are refused, skippable ones (padding among
// them) skipped, the stream identifier checked. A chunk decodes to at most
// 64 KiB, and the decoded bytes count against the Budget (per stream and
// per snapshot) before they are allocated.

// maxChunkData is the most one chunk decodes to (the framing format's
// limit; xerial writes Flink's 64 KiB blocks).
const maxChunkData = 65536

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// errEnd marks the end of the raw stream (not an error by itself).
var errEnd = errors.New("end of the state stream")

// step decodes the chunk at s.rp, or records why not in s.err.
func (s *Stream) step(what string) {
	if s.next < len(s.offs) && s.offs[s.next] < int64(s.rp) {
		s.err = &FormatError{What: what, Offset: s.offs[s.next], Msg: fmt.Sprintf("offset %d is not the start of a snappy chunk", s.offs[s.next])}
		return
	}
	if s.rp >= len(s.raw) {
		s.err = errEnd
		if s.next < len(s.offs) {
			s.err = &FormatError{What: what, Offset: s.offs[s.next], Msg: fmt.Sprintf("offset %d is not the start of a snappy chunk", s.offs[s.next])}
		}
		return
	}
	if s.next < len(s.offs) && s.offs[s.next] == int64(s.rp) {
		s.pos[s.next] = int64(len(s.decoded))
		s.next++
	}
	at := int64(s.rp)
	fail := func(format string, args ...any) {
		s.err = &FormatError{What: what, Offset: at, Msg: fmt.Sprintf(format, args...)}
	}
	if len(s.raw)-s.rp < 4 {
		fail("snappy chunk header: need 4 bytes, %d left", len(s.raw)-s.rp)
		return
	}
	typ := s.raw[s.rp]
	n := int(s.raw[s.rp+1]) | int(s.raw[s.rp+2])<<8 | int(s.raw[s.rp+3])<<16
	if n > len(s.raw)-s.rp-4 {
		fail("snappy chunk of %d bytes with %d left (truncated)", n, len(s.raw)-s.rp-4)
		return
	}
	body := s.raw[s.rp+4 : s.rp+4+n]
	s.rp += 4 + n
	switch {
	case typ == 0xff:
		if string(body) != "sNaPpY" {
			fail("snappy stream identifier %q, want \"sNaPpY\"", body)
		}
		return
	case typ >= 0x80:
		return // skippable (0xfe: padding)
	case typ > 1:
		fail("reserved unskippable snappy chunk type 0x%02x", typ)
		return
	case n < 4:
		fail("snappy chunk of %d bytes has no checksum", n)
		return
	}
	data := body[4:]
	dlen := len(data)
	if typ == 0 {
		var err error
		if dlen, err = snappy.DecodedLen(data); err != nil {
			fail("corrupt snappy block: %v", err)
			return
		}
	}
	if dlen > maxChunkData {
		fail("snappy chunk decodes to %d bytes, more than the framing format's %d", dlen, maxChunkData)
		return
	}
	if int64(len(s.decoded)+dlen) > s.budget.stream {
		s.err = fmt.Errorf("%w: %s: more than %d bytes decoded out of the state stream", ErrTooLarge, what, s.budget.stream)
		return
	}
	if !s.budget.take(int64(dlen)) {
		s.err = fmt.Errorf("%w: %s: more than %d bytes decoded out of the snapshot's compressed state streams", ErrTooLarge, what, s.budget.total)
		return
	}
	if err := s.budget.Err(); err != nil {
		s.err = err
		return
	}
	l := len(s.decoded)
	if l+dlen > cap(s.decoded) {
		// Doubling (append's growth for large slices is 1.25×): what is
		// allocated stays within twice what is decoded, up to the limit.
		grown := make([]byte, l, min(max(2*cap(s.decoded), l+dlen), int(s.budget.stream)))
		copy(grown, s.decoded)
		s.decoded = grown
	}
	s.decoded = s.decoded[:l+dlen]
	out := s.decoded[l:]
	if typ == 0 {
		if d, err := snappy.Decode(out, data); err != nil || len(d) != dlen || dlen > 0 && &d[0] != &out[0] {
			s.decoded = s.decoded[:l]
			fail("corrupt snappy block")
			return
		}
	} else {
		copy(out, data)
	}
	c := crc32.Checksum(out, castagnoli)
	if masked := (c>>15 | c<<17) + 0xa282ead8; masked != binary.LittleEndian.Uint32(body) {
		s.decoded = s.decoded[:l]
		fail("corrupt snappy chunk (checksum mismatch)")
	}
}
