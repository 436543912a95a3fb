package opstate

import (
	"errors"
	"fmt"
)

// ErrMalformed is wrapped by every error about the content of an operator
// state stream (check with errors.Is); the error is a [*FormatError].
var ErrMalformed = errors.New("opstate: malformed operator state stream")

// ErrTooLarge is wrapped when a state stream, an element or the bytes
// decoded out of compressed streams exceed their limit
// ([Options.MaxStreamSize], [Options.MaxDecodedSize]). Check it with
// errors.Is.
var ErrTooLarge = errors.New("opstate: operator state too large")

// ErrNotRead is wrapped when state is in a file and no
// [Options.ReadStream] was given to read it. Check it with errors.Is.
var ErrNotRead = errors.New("opstate: state in a file not read")

// FormatError says where and what an operator state stream is malformed.
type FormatError struct {
	// What is the structure being read, e.g. "SourceReaderState element 0
	// of subtask 1".
	What string
	// Offset is the byte offset in the state stream (for a compressed
	// stream, of the chunk or element concerned).
	Offset int64
	// Msg says what was wrong.
	Msg string
}

// Error says what was being read, where, and what was wrong.
func (e *FormatError) Error() string {
	return fmt.Sprintf("opstate: malformed %s at byte %d: %s", e.What, e.Offset, e.Msg)
}

// Is reports ErrMalformed.
func (e *FormatError) Is(target error) bool { return target == ErrMalformed }
