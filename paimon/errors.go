package paimon

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Sentinel errors, checked with errors.Is. Returned errors wrap them with the
// object key concerned.
var (
	// ErrSnapshotNotFound means a snapshot file does not exist, or the table
	// has no snapshot at all.
	ErrSnapshotNotFound = errors.New("paimon: snapshot not found")
	// ErrConsumerNotFound means the table has no consumer file for an id.
	ErrConsumerNotFound = errors.New("paimon: consumer not found")
	// ErrCorrupt means a metadata file could not be used: empty, not valid
	// JSON, a required field missing, an impossible value, or too large.
	ErrCorrupt = errors.New("paimon: corrupt metadata")
	// ErrInvalidID means a consumer id or branch name was refused because it
	// could escape its folder or is not printable.
	ErrInvalidID = errors.New("paimon: invalid id")
)

// corruptf returns an error wrapping ErrCorrupt that names key.
func corruptf(key, format string, args ...any) error {
	return fmt.Errorf("paimon: %s: %s: %w", key, fmt.Sprintf(format, args...), ErrCorrupt)
}

// ValidateID reports whether id can name a consumer or a branch: it must be
// non-empty valid UTF-8 of at most 255 bytes, without "/", "\", "..", or
// control characters, so that consumer-<id> stays inside the consumer folder
// on every store. Paimon itself checks less; a job may still use an id this
// refuses, but resumekit will not write or read files for it.
func ValidateID(kind, id string) error {
	bad := func(why string) error {
		return fmt.Errorf("paimon: %s id %q %s: %w", kind, id, why, ErrInvalidID)
	}
	switch {
	case id == "":
		return bad("is empty")
	case len(id) > 255:
		return bad("is longer than 255 bytes")
	case !utf8.ValidString(id):
		return bad("is not valid UTF-8")
	case strings.ContainsAny(id, `/\`):
		return bad(`contains "/" or "\"`)
	case strings.Contains(id, ".."):
		return bad(`contains ".."`)
	case strings.TrimSpace(id) != id:
		return bad("starts or ends with white space")
	}
	for _, r := range id {
		if unicode.IsControl(r) || r == utf8.RuneError {
			return bad("contains a control character")
		}
	}
	return nil
}

// pkgPrefix starts every error message of the package.
const pkgPrefix = "paimon: "

// wrapf puts what the package was doing in front of err, naming the package
// once: err's own "paimon: " is dropped from the text (`paimon: reset
// consumer-x to 9: read snapshot-9: …`, not `paimon: reset … paimon: read
// …`). errors.Is and errors.As still reach err. format must start with
// "paimon: ".
func wrapf(err error, format string, args ...any) error {
	return &wrapError{msg: fmt.Sprintf(format, args...), err: err}
}

type wrapError struct {
	msg string
	err error
}

func (e *wrapError) Error() string {
	return e.msg + ": " + strings.TrimPrefix(e.err.Error(), pkgPrefix)
}
func (e *wrapError) Unwrap() error { return e.err }
