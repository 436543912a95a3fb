package flinkckpt

import (
	"fmt"
	"strings"
)

// pkgPrefix starts every error message of the package.
const pkgPrefix = "flinkckpt: "

// wrapf puts what the package was doing in front of err, naming the package
// once: err's own "flinkckpt: " is dropped from the text, so that messages
// read `flinkckpt: resolve "ck/": list "ck/": …`, not `flinkckpt: resolve
// "ck/": flinkckpt: list "ck/": …`. errors.Is and errors.As still reach err.
// format must start with "flinkckpt: ".
func wrapf(err error, format string, args ...any) error {
	return &wrapError{msg: fmt.Sprintf(format, args...), err: err}
}

type wrapError struct {
	msg string
	err error
}

func (e *wrapError) Error() string { return e.msg + ": " + unprefixed(e.err) }
func (e *wrapError) Unwrap() error { return e.err }

// unprefixed is err's text without the package's own prefix.
func unprefixed(err error) string { return strings.TrimPrefix(err.Error(), pkgPrefix) }
