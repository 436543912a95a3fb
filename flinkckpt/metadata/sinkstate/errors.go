package sinkstate

import (
	"errors"
	"fmt"

	"github.com/resumekit/resumekit/flinkckpt/internal/javaio"
)

// ErrMalformed is wrapped by every error about the content of committer
// state (check with errors.Is); the error is a [*FormatError], or for the
// state stream's framing an opstate.FormatError.
var ErrMalformed = errors.New("sinkstate: malformed committer state")

// FormatError says where and what committer state is malformed.
type FormatError struct {
	// What is the structure being read, e.g. "CommittableCollector v2".
	What string
	// Offset is the byte offset in the element's payload.
	Offset int64
	// Msg says what was wrong.
	Msg string
}

// Error says what was being read, where, and what was wrong.
func (e *FormatError) Error() string {
	return fmt.Sprintf("sinkstate: malformed %s at byte %d: %s", e.What, e.Offset, e.Msg)
}

// Is reports ErrMalformed.
func (e *FormatError) Is(target error) bool { return target == ErrMalformed }

// cursor is the shared big-endian reader with a sticky error
// ([javaio.Cursor]), failing with a [*FormatError] that names the
// structure and its serializer version.
type cursor struct{ javaio.Cursor }

func newCursor(what string, version int32, b []byte) *cursor {
	return &cursor{javaio.Cursor{What: what, Version: version, HasVersion: true, Buf: b,
		NewErr: func(what string, off int64, msg string) error { return &FormatError{What: what, Offset: off, Msg: msg} }}}
}
