package opstate

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/resumekit/resumekit/flinkckpt/metadata"
)

// DefaultMaxStreamSize is the default limit on a state stream read through
// [Options.ReadStream], on the bytes decoded out of one compressed stream
// and on one element.
const DefaultMaxStreamSize int64 = 64 << 20

// DefaultMaxDecodedSize is the default limit on the bytes decoded out of
// all the compressed streams of one snapshot (one Decode).
const DefaultMaxDecodedSize int64 = 256 << 20

// Options says how state held outside _metadata is read and how much of it
// may be decoded. A nil *Options reads inline state only, with the default
// limits.
type Options struct {
	// ReadStream returns the bytes of a state stream held outside
	// _metadata: a file's content (handle types 2 and 6), or for a segment
	// of a merged file (type 15) the segment's byte range only. When nil,
	// state in files is not read: [Options.Stream] returns an error
	// wrapping [ErrNotRead].
	ReadStream func(h *metadata.StreamHandle) ([]byte, error)
	// MaxStreamSize bounds a stream ReadStream returns, the bytes decoded
	// out of one compressed stream and one element; 0 means
	// [DefaultMaxStreamSize].
	MaxStreamSize int64
	// MaxDecodedSize bounds the bytes decoded out of every compressed
	// stream of one snapshot together (one [Budget]); 0 means
	// [DefaultMaxDecodedSize].
	MaxDecodedSize int64
	// Context, when set, stops a decode early: the loops over elements
	// and chunks check it and return its error, so a caller whose deadline
	// passed does not leave a goroutine decoding on.
	Context context.Context
}

// MaxSize is the limit on one stream and one element.
func (o *Options) MaxSize() int64 {
	if o == nil || o.MaxStreamSize <= 0 {
		return DefaultMaxStreamSize
	}
	return o.MaxStreamSize
}

// NewBudget returns the budget of decoded bytes for one snapshot:
// MaxDecodedSize, and MaxStreamSize for each stream.
func (o *Options) NewBudget() *Budget {
	total := DefaultMaxDecodedSize
	if o != nil && o.MaxDecodedSize > 0 {
		total = o.MaxDecodedSize
	}
	b := &Budget{stream: o.MaxSize(), total: total}
	if o != nil {
		b.ctx = o.Context
	}
	b.left.Store(total)
	return b
}

// Budget bounds the bytes decoded out of compressed streams: per stream
// and for all the streams opened with it together (one snapshot). It is
// safe for concurrent use. A nil *Budget is the defaults' budget, fresh for
// each stream.
type Budget struct {
	stream, total int64
	left          atomic.Int64
	ctx           context.Context
}

// take reserves n decoded bytes of the snapshot's budget.
func (b *Budget) take(n int64) bool {
	return b.left.Add(-n) >= 0
}

// Err is the error of the budget's context (nil without one): decoders
// check it in their loops over input-sized data.
func (b *Budget) Err() error {
	if b == nil || b.ctx == nil {
		return nil
	}
	return b.ctx.Err()
}

// Stream returns the bytes of the state stream h: inline bytes (handle
// type 1), none for an empty segment, or for a file or a segment of a
// merged file what ReadStream returns (an error wrapping [ErrNotRead] when
// ReadStream is nil, [ErrTooLarge] above MaxStreamSize).
func (o *Options) Stream(h *metadata.StreamHandle) ([]byte, error) {
	if h == nil {
		return nil, errors.New("no state stream")
	}
	switch h.Type {
	case metadata.TypeByteStream:
		return h.Data, nil
	case metadata.TypeEmptySegment:
		return nil, nil
	case metadata.TypeFile, metadata.TypeRelativeFile, metadata.TypeSegment:
	default:
		return nil, fmt.Errorf("state stream of handle type %s", h.Type)
	}
	if o == nil || o.ReadStream == nil {
		return nil, fmt.Errorf("%w: %s (%s)", ErrNotRead, h.Path, h.Type)
	}
	b, err := o.ReadStream(h)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", h.Path, err)
	}
	if int64(len(b)) > o.MaxSize() {
		return nil, fmt.Errorf("%w: %s: %d bytes, limit %d", ErrTooLarge, h.Path, len(b), o.MaxSize())
	}
	return b, nil
}
