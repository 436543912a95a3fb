package opstate

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"testing"
)

// maskedCRC is the framing format's masked CRC-32C of a chunk's
// uncompressed data, for chunks written by hand.
func maskedCRC(b []byte) uint32 {
	c := crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli))
	return (c>>15 | c<<17) + 0xa282ead8
}

// decodeBlock decodes one hand-written Snappy block through the package's
// framed decoder: the block as the one compressed chunk of a stream, its
// checksum computed over want (what the block should decode to).
func decodeBlock(block, want []byte) ([]byte, error) {
	data := append(binary.LittleEndian.AppendUint32(nil, maskedCRC(want)), block...)
	chunk := append([]byte{0x00, byte(len(data)), byte(len(data) >> 8), byte(len(data) >> 16)}, data...)
	stream := append([]byte{0, 0, 0, 6, 1}, chunk...) // proxy header v6, compressed
	s, err := Open(stream, nil, []int64{5})
	if err != nil {
		return nil, err
	}
	return s.At(5, int64(len(want)), "hand-written block")
}

// snappyOp is one element of a Snappy block, written by hand from the
// format description (github.com/google/snappy format_description.txt)
// rather than by an encoder: the tags an encoder may never emit for
// Flink's 64 KiB blocks (literals with 2 length bytes, copies with a
// 4-byte offset, copies overlapping their own output) are decoded too.
type snappyOp struct {
	tag  []byte // the tag byte and its length/offset bytes
	lit  []byte // literal data after the tag
	copy [2]int // offset, length of a copy
}

func handBlock() (block, want []byte) {
	seq := func(n int, base byte) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = base + byte(i%23)
		}
		return b
	}
	lit70, lit300 := seq(70, 'A'), seq(300, 'a')
	ops := []snappyOp{
		{tag: []byte{(3 - 1) << 2}, lit: []byte("abc")},                         // literal, length in the tag
		{tag: []byte{1 | (7-4)<<2, 3}, copy: [2]int{3, 7}},                      // copy, 1-byte offset, overlapping
		{tag: []byte{60 << 2, 70 - 1}, lit: lit70},                              // literal, 1 length byte
		{tag: []byte{2 | (10-1)<<2, 80, 0}, copy: [2]int{80, 10}},               // copy, 2-byte offset
		{tag: []byte{61 << 2, (300 - 1) & 0xff, (300 - 1) >> 8}, lit: lit300},   // literal, 2 length bytes
		{tag: []byte{3 | (64-1)<<2, 0x5a, 0x01, 0, 0}, copy: [2]int{0x15a, 64}}, // copy, 4-byte offset
		{tag: []byte{1 | (11-4)<<2 | 0<<5, 1}, copy: [2]int{1, 11}},             // run of one byte
	}
	for _, op := range ops {
		block = append(block, op.tag...)
		block = append(block, op.lit...)
		want = append(want, op.lit...)
		for i := 0; i < op.copy[1]; i++ {
			want = append(want, want[len(want)-op.copy[0]])
		}
	}
	return append(binary.AppendUvarint(nil, uint64(len(want))), block...), want
}

func TestSnappyHandWrittenBlock(t *testing.T) {
	block, want := handBlock()
	got, err := decodeBlock(block, want)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("decoded %q\nwant    %q", got, want)
	}
	// One byte short of the declared length, and a copy reaching before
	// the block: refused.
	if _, err := decodeBlock(block[:len(block)-1], want); err == nil {
		t.Error("truncated block accepted")
	}
	bad := append(binary.AppendUvarint(nil, 5), 0<<2, 'x', 1|0<<2, 2)
	if _, err := decodeBlock(bad, []byte("xxxxx")); err == nil {
		t.Error("copy before the block's start accepted")
	}
}

// A framed stream as the framing format allows it around an element:
// the stream identifier, a padding chunk and a skippable chunk (ignored),
// a compressed chunk and an uncompressed one (the element spans both),
// each with its masked CRC-32C.
func TestSnappyHandWrittenFrames(t *testing.T) {
	block, want := handBlock()
	chunk := func(typ byte, data []byte) []byte {
		h := []byte{typ, byte(len(data)), byte(len(data) >> 8), byte(len(data) >> 16)}
		return append(h, data...)
	}
	withCRC := func(uncompressed, payload []byte) []byte {
		return append(binary.LittleEndian.AppendUint32(nil, maskedCRC(uncompressed)), payload...)
	}
	tail := []byte("-the-rest-of-the-split")
	split := append(append([]byte{}, want...), tail...)
	elem := binary.BigEndian.AppendUint32(nil, uint32(len(split)+8))
	elem = binary.BigEndian.AppendUint32(elem, 7)
	elem = binary.BigEndian.AppendUint32(elem, uint32(len(split)))
	// The element's 12-byte head and the hand-written block's output go in
	// the compressed chunk; the rest in an uncompressed one.
	head := elem
	headBlock := append(binary.AppendUvarint(nil, uint64(len(head))), byte((len(head)-1)<<2))
	headBlock = append(headBlock, head...)
	stream := []byte{0, 0, 0, 6, 1} // proxy header v6, compressed
	stream = append(stream, chunk(0xff, []byte("sNaPpY"))...)
	offset := int64(len(stream))
	stream = append(stream, chunk(0xfe, make([]byte, 5))...)
	stream = append(stream, chunk(0x00, withCRC(head, headBlock))...)
	stream = append(stream, chunk(0x00, withCRC(want, block))...)
	stream = append(stream, chunk(0x85, []byte("skip me"))...)
	stream = append(stream, chunk(0x01, withCRC(tail, tail))...)
	splits, err := ReadListElements(stream, "test", []int64{offset}, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(splits) != 1 || splits[0].Version != 7 || !bytes.Equal(splits[0].Data, split) {
		t.Fatalf("splits %+v", splits)
	}
	// A reserved unskippable chunk type (0x02) is an error, not skipped.
	bad := append(stream[:offset:offset], chunk(0x02, []byte("?"))...)
	if _, err := ReadListElements(bad, "test", []int64{offset}, 0, 0); err == nil {
		t.Error("reserved chunk type skipped")
	}
}
