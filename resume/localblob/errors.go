package localblob

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"

	"gocloud.dev/gcerrors"

	"github.com/resumekit/resumekit/resume/redact"
)

// Sentinel errors, checked with errors.Is. Returned errors are *Error values
// wrapping them with the key concerned.
var (
	// ErrOutside means a key resolves outside the bucket's directory: through
	// "..", or a symbolic link leading out (gcerrors code PermissionDenied).
	ErrOutside = errors.New("localblob: outside the directory")
	// ErrNotRegular means a key names a named pipe, device, socket or
	// directory where a regular file was expected (FailedPrecondition).
	ErrNotRegular = errors.New("localblob: not a regular file")
	// ErrInvalidKey means a key is not a clean relative path (NotFound for
	// reads, stats and deletes; InvalidArgument for writes).
	ErrInvalidKey = errors.New("localblob: invalid key")
)

var errUnimplemented = errors.New("not supported by localblob")

// Error is the error of one operation on one key.
type Error struct {
	Op  string // "read", "write", "stat", "list", "delete", "copy", "sign"
	Key string
	Err error
	// code overrides the code derived from Err.
	code gcerrors.ErrorCode
}

func (e *Error) Error() string {
	// The sentinels' own "localblob: " is said once.
	return fmt.Sprintf("localblob: %s %s: %s", e.Op, redact.QuoteKey(e.Key), strings.TrimPrefix(e.Err.Error(), "localblob: "))
}

func (e *Error) Unwrap() error { return e.Err }

// ErrorCode maps errors to gocloud codes.
func (b *bucket) ErrorCode(err error) gcerrors.ErrorCode { return errorCode(err) }

func errorCode(err error) gcerrors.ErrorCode {
	var e *Error
	if errors.As(err, &e) && e.code != 0 {
		return e.code
	}
	switch {
	case errors.Is(err, context.Canceled):
		return gcerrors.Canceled
	case errors.Is(err, context.DeadlineExceeded):
		return gcerrors.DeadlineExceeded
	case errors.Is(err, ErrOutside):
		return gcerrors.PermissionDenied
	case errors.Is(err, ErrNotRegular):
		return gcerrors.FailedPrecondition
	case errors.Is(err, errUnimplemented):
		return gcerrors.Unimplemented
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		// ENOTDIR: a path element is a file, so the key cannot exist.
		return gcerrors.NotFound
	case errors.Is(err, fs.ErrExist):
		return gcerrors.FailedPrecondition
	case errors.Is(err, fs.ErrPermission):
		return gcerrors.PermissionDenied
	}
	return gcerrors.Unknown
}

// fail wraps an operating-system error of op on key, turning os.Root's
// "path escapes from parent" into ErrOutside.
func (b *bucket) fail(op, key string, err error) error {
	if isEscape(err) {
		return &Error{Op: op, Key: key, Err: fmt.Errorf("%w: it resolves through a symlink (or \"..\") to a place outside %s: refused", ErrOutside, b.dir)}
	}
	return &Error{Op: op, Key: key, Err: err}
}

// badKey is the error for a key checkKey refused.
func badKey(op, key string, why error, write bool) error {
	code := gcerrors.NotFound
	if write {
		code = gcerrors.InvalidArgument
	}
	return &Error{Op: op, Key: key, Err: fmt.Errorf("%w: %v", ErrInvalidKey, why), code: code}
}

// notRegular is the error for a key that names something else than a
// regular file.
func notRegular(op, key string, mode fs.FileMode) error {
	return &Error{Op: op, Key: key, Err: fmt.Errorf("%w: it is %s: refused", ErrNotRegular, describe(mode))}
}

func describe(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "not a regular file (mode " + m.String() + ")"
}

// isEscape reports whether err is os.Root's refusal of a path that leaves
// the root. The os package does not export that error; its text is stable.
func isEscape(err error) bool {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if e.Error() == "path escapes from parent" {
			return true
		}
	}
	var pe *os.PathError
	return errors.As(err, &pe) && pe.Err != nil && pe.Err.Error() == "path escapes from parent"
}
