package metadata

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"unsafe"
)

// DefaultMaxSize is the default limit on the size of a _metadata file:
// 2 GiB. Flink sets no limit of its own, and every state handle up to
// execution.checkpointing.data-inline-threshold (at most 1 MiB,
// CheckpointingOptions.FS_SMALL_FILE_THRESHOLD) is written inline, so a
// union list state of a few hundred subtasks makes a _metadata of hundreds
// of MB.
const DefaultMaxSize int64 = 2 << 30

// ReadOptions configures [Read] and [Parse]. A nil *ReadOptions means
// defaults.
type ReadOptions struct {
	// MaxSize limits the file size; 0 means DefaultMaxSize.
	MaxSize int64
	// Size is the length of the stream when the caller knows it (a
	// gocloud blob.Reader's Size()); 0 means unknown. With it, Read refuses
	// a file over MaxSize before reading any of it, and reads into one
	// buffer of exactly that size instead of a growing one (which holds up
	// to twice the file while it grows). A stream that turns out shorter
	// or longer is still read correctly.
	Size int64
}

func (o *ReadOptions) maxSize() int64 {
	if o == nil || o.MaxSize <= 0 {
		return DefaultMaxSize
	}
	return o.MaxSize
}

// Read parses a _metadata file from r. It reads at most the size limit plus
// one byte, and fails with an error wrapping [ErrTooLarge] past it. The
// file is held once: the returned Checkpoint's inline bytes and strings
// share the buffer it was read into (no second copy, however large).
func Read(r io.Reader, opts *ReadOptions) (*Checkpoint, error) {
	limit := opts.maxSize()
	var data []byte
	if opts != nil && opts.Size > 0 {
		if opts.Size > limit {
			return nil, fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, opts.Size, limit)
		}
		var err error
		if data, err = readSized(r, opts.Size, limit); err != nil {
			return nil, err
		}
	} else {
		var buf bytes.Buffer
		n, err := buf.ReadFrom(io.LimitReader(r, limit+1))
		if err != nil {
			return nil, fmt.Errorf("metadata: read _metadata: %w", err)
		}
		if n > limit {
			return nil, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, limit)
		}
		data = buf.Bytes()
	}
	return parse(data, opts, true)
}

// readSized reads a stream announced as size bytes into one buffer of that
// size; a shorter stream gives what it has, a longer one is read on up to
// limit (a second buffer, only then).
func readSized(r io.Reader, size, limit int64) ([]byte, error) {
	buf := make([]byte, size)
	n, err := io.ReadFull(r, buf)
	switch {
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return buf[:n], nil
	case err != nil:
		return nil, fmt.Errorf("metadata: read _metadata: %w", err)
	}
	var more bytes.Buffer
	m, err := more.ReadFrom(io.LimitReader(r, limit-size+1))
	if err != nil {
		return nil, fmt.Errorf("metadata: read _metadata: %w", err)
	}
	if m == 0 {
		return buf, nil
	}
	if size+m > limit {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, limit)
	}
	return append(buf, more.Bytes()...), nil
}

// Parse parses a _metadata file held in memory. The returned Checkpoint may
// share inline byte slices with data.
func Parse(data []byte, opts *ReadOptions) (*Checkpoint, error) {
	return parse(data, opts, false)
}

// parse decodes data; owned says that nothing else holds data (Read's own
// buffer), so that strings may share its memory.
func parse(data []byte, opts *ReadOptions, owned bool) (*Checkpoint, error) {
	if limit := opts.maxSize(); int64(len(data)) > limit {
		return nil, fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, len(data), limit)
	}
	d := &decoder{buf: data}
	switch {
	case owned && len(data) > 0:
		// Read's buffer is never written again and nothing else holds it:
		// strings can be views of it, so a file of hundreds of MB is held
		// once, not twice.
		d.str = unsafe.String(&data[0], len(data))
	case len(data) >= 64<<10:
		// One copy of a large caller-owned file as a string costs about
		// what its path strings would, with one allocation instead of one
		// per string.
		d.str = string(data)
	}
	cp := d.checkpoint()
	if d.err != nil {
		return nil, d.err
	}
	return cp, nil
}
