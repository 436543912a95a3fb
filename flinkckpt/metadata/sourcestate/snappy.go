package sourcestate

import (
	"encoding/binary"
	"hash/crc32"
)

// Flink compresses operator state (execution.checkpointing.snapshot-compression)
// with xerial's SnappyFramedOutputStream, blocks of 64 KiB
// (SnappyStreamCompressionDecorator). The state stream holds the Snappy
// framing format (github.com/google/snappy framing_format.txt): after the
// serialization proxy's header comes the stream identifier chunk, then
// chunks of type byte, 3-byte little-endian length, and data. Because
// PartitionableListState records every element's offset with getPos(),
// which flushes the compressor, every offset is the start of a chunk; the
// restore path seeks there and reads on (CompressibleFSDataInputStream). So
// an element is read by decoding chunks from its offset until its bytes are
// complete.
//
// This is a small decoder of its own, so that the package keeps to the
// standard library: the block format is a handful of tag types. The tests
// check it against an independent encoder
// (github.com/klauspost/compress/snappy) and against blocks and frames
// written by hand from the format description, with the tags an encoder
// rarely emits (4-byte copy offsets, 2-byte literal lengths, overlapping
// copies, padding and skippable chunks). No compressed Flink state has been
// published to check it against xerial's encoder itself.

const (
	chunkCompressed   = 0x00
	chunkUncompressed = 0x01
	chunkPadding      = 0xfe
	chunkIdentifier   = 0xff
	// maxChunkData is the most a chunk may decode to (the framing format's
	// limit; xerial writes at most Flink's 64 KiB blocks).
	maxChunkData = 65536
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

func maskedCRC(b []byte) uint32 {
	c := crc32.Checksum(b, crcTable)
	return (c>>15 | c<<17) + 0xa282ead8
}

// snappyFrames decodes framed chunks from c's position until at least want
// bytes are decoded (or the chunks end), appending to dst. It never
// allocates more than the chunks really decode to.
func snappyFrames(c *cursor, want int, dst []byte) []byte {
	for c.err == nil && len(dst) < want && c.left() > 0 {
		start := c.off
		hdr := c.take(4, "snappy chunk header")
		if c.err != nil {
			break
		}
		typ := hdr[0]
		n := int(hdr[1]) | int(hdr[2])<<8 | int(hdr[3])<<16
		data := c.take(n, "snappy chunk")
		if c.err != nil {
			break
		}
		switch {
		case typ == chunkIdentifier:
			if string(data) != "sNaPpY" {
				c.off = start
				c.fail("snappy stream identifier %q", data)
			}
		case typ == chunkCompressed || typ == chunkUncompressed:
			if n < 4 {
				c.off = start
				c.fail("snappy chunk of %d bytes has no checksum", n)
				break
			}
			sum := binary.LittleEndian.Uint32(data)
			var out []byte
			if typ == chunkUncompressed {
				if n-4 > maxChunkData {
					c.off = start
					c.fail("uncompressed snappy chunk of %d bytes (limit %d)", n-4, maxChunkData)
					break
				}
				out = data[4:]
				dst = append(dst, out...)
			} else {
				before := len(dst)
				var msg string
				dst, msg = snappyBlock(dst, data[4:])
				if msg != "" {
					c.off = start
					c.fail("snappy block: %s", msg)
					break
				}
				out = dst[before:]
			}
			if maskedCRC(out) != sum {
				c.off = start
				c.fail("snappy chunk checksum mismatch")
			}
		case typ == chunkPadding || typ >= 0x80:
			// skippable
		default:
			c.off = start
			c.fail("reserved unskippable snappy chunk type 0x%02x", typ)
		}
	}
	return dst
}

// snappyBlock appends the decompression of one Snappy block to dst. It
// returns a message instead of the result when the block is malformed.
func snappyBlock(dst, src []byte) ([]byte, string) {
	n, k := binary.Uvarint(src)
	if k <= 0 {
		return dst, "bad length varint"
	}
	if n > maxChunkData {
		return dst, "block decodes to more than 64 KiB"
	}
	src = src[k:]
	base := len(dst)
	end := base + int(n)
	if cap(dst) < end {
		grown := make([]byte, len(dst), max(end, 2*cap(dst)))
		copy(grown, dst)
		dst = grown
	}
	for len(src) > 0 {
		tag := src[0]
		src = src[1:]
		var length, offset int
		switch tag & 3 {
		case 0:
			length = int(tag >> 2)
			if length >= 60 {
				extra := length - 59
				if len(src) < extra {
					return dst, "truncated literal length"
				}
				length = 0
				for i := 0; i < extra; i++ {
					length |= int(src[i]) << (8 * i)
				}
				src = src[extra:]
				if length < 0 || length >= maxChunkData {
					return dst, "literal too long"
				}
			}
			length++
			if length > len(src) {
				return dst, "truncated literal"
			}
			if len(dst)+length > end {
				return dst, "literal past the block's length"
			}
			dst = append(dst, src[:length]...)
			src = src[length:]
			continue
		case 1:
			if len(src) < 1 {
				return dst, "truncated copy"
			}
			length = 4 + int(tag>>2&7)
			offset = int(tag&0xe0)<<3 | int(src[0])
			src = src[1:]
		case 2:
			if len(src) < 2 {
				return dst, "truncated copy"
			}
			length = 1 + int(tag>>2)
			offset = int(binary.LittleEndian.Uint16(src))
			src = src[2:]
		case 3:
			if len(src) < 4 {
				return dst, "truncated copy"
			}
			length = 1 + int(tag>>2)
			offset = int(binary.LittleEndian.Uint32(src))
			src = src[4:]
		}
		if offset <= 0 || offset > len(dst)-base {
			return dst, "copy offset out of range"
		}
		if len(dst)+length > end {
			return dst, "copy past the block's length"
		}
		for i := 0; i < length; i++ {
			dst = append(dst, dst[len(dst)-offset])
		}
	}
	if len(dst) != end {
		return dst, "block shorter than its length"
	}
	return dst, ""
}
