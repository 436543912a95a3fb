package metadata

import (
	"bytes"
	"fmt"
	"io"
)

// DefaultMaxSize is the default limit on the size of a _metadata file.
const DefaultMaxSize int64 = 256 << 20

// ReadOptions configures [Read] and [Parse]. A nil *ReadOptions means
// defaults.
type ReadOptions struct {
	// MaxSize limits the file size; 0 means DefaultMaxSize.
	MaxSize int64
}

func (o *ReadOptions) maxSize() int64 {
	if o == nil || o.MaxSize <= 0 {
		return DefaultMaxSize
	}
	return o.MaxSize
}

// Read parses a _metadata file from r. It reads at most the size limit plus
// one byte, and fails with an error wrapping [ErrTooLarge] past it.
func Read(r io.Reader, opts *ReadOptions) (*Checkpoint, error) {
	limit := opts.maxSize()
	var buf bytes.Buffer
	n, err := buf.ReadFrom(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("metadata: read _metadata: %w", err)
	}
	if n > limit {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, limit)
	}
	return Parse(buf.Bytes(), opts)
}

// Parse parses a _metadata file held in memory. The returned Checkpoint may
// share inline byte slices with data.
func Parse(data []byte, opts *ReadOptions) (*Checkpoint, error) {
	if limit := opts.maxSize(); int64(len(data)) > limit {
		return nil, fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, len(data), limit)
	}
	d := &decoder{buf: data}
	if len(data) >= 64<<10 {
		// One copy of a large file as a string costs about what its path
		// strings would, with one allocation instead of one per string.
		d.str = string(data)
	}
	cp := d.checkpoint()
	if d.err != nil {
		return nil, d.err
	}
	return cp, nil
}
