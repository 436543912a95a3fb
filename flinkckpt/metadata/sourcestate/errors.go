package sourcestate

import (
	"errors"
	"fmt"

	"github.com/resumekit/resumekit/flinkckpt/metadata/opstate"
)

// ErrMalformed is wrapped by every error about the content of source state
// (check with errors.Is); the error is a [*FormatError].
var ErrMalformed = errors.New("sourcestate: malformed source state")

// ErrTooLarge is wrapped when a state stream or an element is larger than
// the limit ([Options.MaxStreamSize]), or more bytes would be decoded out
// of compressed streams than [Options.MaxDecodedSize] allows: opstate's
// ErrTooLarge. Check it with errors.Is.
var ErrTooLarge = opstate.ErrTooLarge

// maxID is the largest offset or snapshot id accepted in source state: 2^62,
// as metadata.MaxCheckpointID and paimon.MaxID. A larger value is
// malformed, so that no caller's arithmetic (end - offset, next + 1) comes
// near int64 overflow, and no such value is offered as a start.
const maxID = 1 << 62

// FormatError says where and what source state is malformed.
type FormatError struct {
	// What is the structure being read, e.g. "KafkaSource split v0".
	What string
	// Offset is the byte offset in that structure's bytes.
	Offset int64
	// Msg says what was wrong.
	Msg string
}

// Error says what was being read, where, and what was wrong.
func (e *FormatError) Error() string {
	return fmt.Sprintf("sourcestate: malformed %s at byte %d: %s", e.What, e.Offset, e.Msg)
}

// Is reports ErrMalformed.
func (e *FormatError) Is(target error) bool { return target == ErrMalformed }
