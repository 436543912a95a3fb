package sourcestate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/snappy"
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
// The chunks are decoded by github.com/klauspost/compress/snappy's framed
// Reader (checksums, padding and skippable chunks, reserved types refused,
// 64 KiB blocks). That Reader wants the stream identifier first, which an
// element's offset past the stream's start does not have, so the identifier
// chunk is put in front of the bytes at the offset; the framing format
// allows the identifier again anywhere, so an offset at the real identifier
// reads the same.

// streamIdentifier is the framing format's stream identifier chunk.
var streamIdentifier = []byte{0xff, 6, 0, 0, 's', 'N', 'a', 'P', 'p', 'Y'}

// maxChunkData is the most one chunk decodes to (the framing format's
// limit; xerial writes Flink's 64 KiB blocks): the first allocation for an
// element is at most that, later ones only as decoded bytes arrive.
const maxChunkData = 65536

// readers keeps framed Readers for reuse: each holds two 64 KiB buffers,
// and a reader state stream has one element (one decode) per split.
var readers sync.Pool

// snappyFrames decodes the framed chunks at stream[off:] until want bytes
// are decoded. It never allocates much more than the chunks really decode
// to (the Reader's 64 KiB block buffers aside), so a hostile length cannot
// make it allocate. Errors are FormatErrors about what at off.
func snappyFrames(stream []byte, off int, want int64, what string) ([]byte, error) {
	src := io.MultiReader(bytes.NewReader(streamIdentifier), bytes.NewReader(stream[off:]))
	r, _ := readers.Get().(*snappy.Reader)
	if r == nil {
		r = snappy.NewReader(src)
	} else {
		r.Reset(src)
	}
	defer func() { r.Reset(nil); readers.Put(r) }()
	out := make([]byte, 0, min(want, maxChunkData))
	var err error
	for int64(len(out)) < want && err == nil {
		if len(out) == cap(out) {
			out = append(out, 0)[:len(out)]
		}
		var k int
		k, err = r.Read(out[len(out):min(int64(cap(out)), want)])
		out = out[:len(out)+k]
	}
	if err == io.EOF {
		err = nil
	}
	n := int64(len(out))
	switch {
	case err != nil && errors.Is(err, snappy.ErrUnsupported):
		return nil, &FormatError{What: what, Offset: int64(off), Msg: "reserved unskippable snappy chunk type"}
	case err != nil && errors.Is(err, snappy.ErrCorrupt):
		return nil, &FormatError{What: what, Offset: int64(off), Msg: "corrupt snappy chunk (bad block or checksum mismatch)"}
	case err != nil:
		return nil, &FormatError{What: what, Offset: int64(off), Msg: "snappy chunks: " + err.Error()}
	case n < want:
		return nil, &FormatError{What: what, Offset: int64(off), Msg: fmt.Sprintf("the snappy chunks end after %d of %d bytes", n, want)}
	}
	return out, nil
}
