package sourcestate

import "github.com/resumekit/resumekit/flinkckpt/internal/javaio"

// cursor is the shared big-endian reader with a sticky error
// ([javaio.Cursor]), failing with a [*FormatError]; the split and
// enumerator readers add their own methods.
type cursor struct{ javaio.Cursor }

func newCursor(what string, b []byte) *cursor {
	return &cursor{javaio.Cursor{What: what, Buf: b, NewErr: formatError}}
}

func newVersionedCursor(what string, version int32, b []byte) *cursor {
	return &cursor{javaio.Cursor{What: what, Version: version, HasVersion: true, Buf: b, NewErr: formatError}}
}

func formatError(what string, off int64, msg string) error {
	return &FormatError{What: what, Offset: off, Msg: msg}
}
