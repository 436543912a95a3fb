package localblob

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/resumekit/resumekit/resume/redact"
)

// ErrNotLocal means a file URL names something else than a local path: a
// host other than localhost, user information, a query or a fragment.
var ErrNotLocal = errors.New("localblob: not a local path")

// LocalPath reports whether raw names a local directory and returns it
// absolute: a plain path (anything without "://" that is not a file URL),
// or a file URL — file:///dir, file://localhost/dir, or Flink's spelling
// file:/dir — with the scheme in any case. It is how a program decides that
// a location goes through this package rather than through a gocloud URL
// opener: gocloud lower-cases the scheme, so a FILE:// URL left to it would
// reach fileblob (if the program links it), which follows links out of the
// directory and writes sidecar files.
//
// A file URL with a host other than localhost, user information, a query
// or a fragment is an error wrapping [ErrNotLocal] (local is true: it is
// not a URL for another opener either); the error never quotes the user
// information.
func LocalPath(raw string) (dir string, local bool, err error) {
	p := raw
	if isFileURL(raw) {
		u, err := url.Parse(raw)
		if err != nil {
			return "", true, fmt.Errorf("localblob: file URL %s: %w", redact.Quote(redact.URL(raw)), redact.ParseError(err))
		}
		switch {
		case u.User != nil:
			return "", true, fmt.Errorf("%w: file URL %s carries user information (a file URL names a local path only)", ErrNotLocal, redact.Quote(redact.URL(raw)))
		case u.Host != "" && u.Host != "localhost":
			return "", true, fmt.Errorf("%w: file URL %s names host %s (only local paths are supported)", ErrNotLocal, redact.Quote(redact.URL(raw)), redact.Quote(u.Host))
		case u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
			return "", true, fmt.Errorf("%w: file URL %s has a query or fragment (a file URL takes no parameters)", ErrNotLocal, redact.Quote(redact.URL(raw)))
		case u.Path == "":
			return "", true, fmt.Errorf("%w: file URL %s names no path", ErrNotLocal, redact.Quote(redact.URL(raw)))
		}
		p = filepath.FromSlash(u.Path)
	} else if strings.Contains(raw, "://") {
		return "", false, nil
	}
	if p == "" {
		return "", true, errors.New("localblob: empty path")
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", true, fmt.Errorf("localblob: local path %s: %w", redact.QuoteKey(p), err)
	}
	return abs, true, nil
}

// isFileURL reports whether raw starts with "file:" in any case.
func isFileURL(raw string) bool {
	return len(raw) >= 5 && strings.EqualFold(raw[:5], "file:")
}
