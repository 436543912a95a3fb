package metadata

import (
	"errors"
	"fmt"
)

// ErrMalformed is wrapped by every error about the content of a _metadata
// file (check with errors.Is); the error is a [*FormatError].
var ErrMalformed = errors.New("metadata: malformed _metadata")

// ErrTooLarge is wrapped when a _metadata file is larger than the limit
// ([ReadOptions.MaxSize]). Check it with errors.Is.
var ErrTooLarge = errors.New("metadata: _metadata too large")

// FormatError says where and what a _metadata file is malformed.
type FormatError struct {
	Offset int64  // byte offset where the problem was found
	What   string // what was being read
	Msg    string // what was wrong with it
}

// Error says where, what was being read, and what was wrong.
func (e *FormatError) Error() string {
	return fmt.Sprintf("metadata: malformed _metadata at byte %d reading %s: %s", e.Offset, e.What, e.Msg)
}

// Is reports ErrMalformed.
func (e *FormatError) Is(target error) bool { return target == ErrMalformed }
