package paimon

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/resumekit/resumekit/resume/redact"
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
	// ErrConsumerActive means ResetConsumer refused a consumer whose file
	// changed recently or while it was observed: a job seems to be running.
	ErrConsumerActive = errors.New("paimon: consumer in use")
	// ErrUnexpectedPrevious means ResetConsumer found another value in the
	// consumer file than ResetOptions expected.
	ErrUnexpectedPrevious = errors.New("paimon: consumer changed since the dry run")
)

// MaxID is the largest snapshot, schema, consumer or hint id accepted: 2^62.
// Larger ids (in names, hints, snapshot and consumer files, and in the
// arguments of ResetConsumer) are refused as malformed, so that id+1 and the
// other steps of every scan stay far from int64 overflow. Paimon would need
// ~146 years of one commit per nanosecond to reach it.
const MaxID = 1 << 62

// corruptf returns an error wrapping ErrCorrupt that names key.
func corruptf(key, format string, args ...any) error {
	return fmt.Errorf("paimon: %s: %s: %w", key, fmt.Sprintf(format, args...), ErrCorrupt)
}

// ValidateID reports whether id can name a consumer or a branch: it must be
// non-empty valid UTF-8 of at most 255 bytes, without "/", "\", "..",
// control characters, invisible or direction-changing characters (zero-width
// spaces and joiners, bidi controls, a byte order mark: any Unicode format
// character), characters that look like "/", "\" or "." (division,
// fraction and fullwidth slashes, solidus overlays, one- and two-dot
// leaders, …), or characters that print as nothing (Hangul fillers, the
// braille blank, variation selectors), so that
// consumer-<id> stays inside the consumer folder on every store and reads as
// what it is. Errors quote the id truncated.
//
// It checks ids a caller gives: Table.Consumer, PlanResetConsumer,
// ResetConsumer, DeleteConsumer, NewResolver and TableOptions.Branch refuse
// such an id with ErrInvalidID before any call to the store. Paimon itself
// checks less, so a job may have used an id this refuses: Table.Consumers
// lists and reads every consumer file it finds, whatever its name, as
// Paimon's $consumers table does (print the names escaped: resumectl does).
func ValidateID(kind, id string) error {
	bad := func(why string) error {
		return fmt.Errorf("paimon: %s id %s %s: %w", kind, redact.Quote(id), why, ErrInvalidID)
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
		switch {
		case unicode.IsControl(r) || r == utf8.RuneError:
			return bad("contains a control character")
		case unicode.Is(unicode.Cf, r):
			return bad(fmt.Sprintf("contains the invisible or direction-changing character U+%04X", r))
		case lookalikes[r] != "":
			return bad(fmt.Sprintf("contains U+%04X (%s), which looks like another character or like none", r, lookalikes[r]))
		case unicode.Is(unicode.Variation_Selector, r):
			return bad(fmt.Sprintf("contains the invisible variation selector U+%04X", r))
		}
	}
	return nil
}

// lookalikes are characters that read as "/", "\" or "." without being
// one, or that print as nothing without being format characters (variation
// selectors are caught as invisible below).
var lookalikes = map[rune]string{
	'\u2215': "division slash",
	'\u2044': "fraction slash",
	'\uFF0F': "fullwidth solidus",
	'\u29F8': "big solidus",
	'\u2571': "box drawings light diagonal",
	'\u2216': "set minus",
	'\uFF3C': "fullwidth reverse solidus",
	'\u29F9': "big reverse solidus",
	'\u2024': "one dot leader",
	'\u2025': "two dot leader",
	'\u2026': "horizontal ellipsis",
	'\uFF0E': "fullwidth full stop",
	'\uFE52': "small full stop",
	// Combining overlays draw a slash through the character before them.
	'\u0337': "combining short solidus overlay",
	'\u0338': "combining long solidus overlay",
	'\u20E5': "combining reverse solidus overlay",
	// Letters and marks that print as nothing (not format characters, so
	// not caught as such).
	'\u034F': "combining grapheme joiner, invisible",
	'\u115F': "hangul choseong filler, invisible",
	'\u1160': "hangul jungseong filler, invisible",
	'\u3164': "hangul filler, invisible",
	'\uFFA0': "halfwidth hangul filler, invisible",
	'\u2800': "braille pattern blank, invisible",
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

// maxForeignText bounds the text of an error from another package (a
// storage driver's, which may quote a whole URL) in an error of this one.
const maxForeignText = 512

// cutText returns err with its message cut to maxForeignText bytes (at a
// rune boundary, the full length said); errors.Is and errors.As still reach
// err. A shorter message is returned as is.
func cutText(err error) error {
	msg := err.Error()
	if len(msg) <= maxForeignText {
		return err
	}
	cut := maxForeignText
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return &cutError{msg: fmt.Sprintf("%s… (%d bytes)", msg[:cut], len(msg)), err: err}
}

type cutError struct {
	msg string
	err error
}

func (e *cutError) Error() string { return e.msg }
func (e *cutError) Unwrap() error { return e.err }
