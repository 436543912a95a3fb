package redact

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// ErrNestedCredentials is wrapped by CheckNested's errors. Check it with
// errors.Is.
var ErrNestedCredentials = errors.New("redact: credentials in a URL given as a query value")

// CheckNested returns an error when a query value of raw is itself a URL
// (endpoint=http://…, percent-encoded or not) that carries user information
// or that net/url refuses: an SDK parses such a value late, and quotes it
// whole — password included — in the error of every request it fails, far
// from any code that could mask it. No storage driver takes credentials that
// way, so refusing the URL costs nothing. The error wraps
// ErrNestedCredentials (or, for a value that does not parse, the masked
// *url.Error) and quotes nothing secret.
func CheckNested(raw string) error {
	_, _, tail := split(raw)
	if tail == "" {
		return nil
	}
	for part := range strings.FieldsFuncSeq(tail[1:], func(r rune) bool { return strings.ContainsRune("&;#", r) }) {
		name, value, ok := strings.Cut(part, "=")
		if !ok {
			continue
		}
		if u := unescape(value); strings.Contains(u, "://") {
			value = u
		}
		if !strings.Contains(value, "://") {
			continue
		}
		u, err := url.Parse(value)
		switch {
		case err == nil && u.User == nil && hasUserinfo(value):
			// net/url reads "http://u:pw/@h" as host u:pw and path /@h; a
			// reader that takes the last "@" sees a password.
			return fmt.Errorf("%s: query parameter %.64q looks like a URL with user information: %w", URL(raw), unescape(name), ErrNestedCredentials)
		case err != nil:
			return fmt.Errorf("%s: query parameter %.64q is no valid URL: %w", URL(raw), unescape(name), ParseError(err))
		case u.User != nil:
			return fmt.Errorf("%s: query parameter %.64q is a URL with user information: %w (give credentials the way the storage SDK takes them: the environment, a profile)",
				URL(raw), unescape(name), ErrNestedCredentials)
		}
	}
	return nil
}

// hasUserinfo reports whether any reading of raw that URL and Text apply
// finds user information in it.
func hasUserinfo(raw string) bool {
	for _, s := range spans(raw, maxNesting) {
		if s.userinfo {
			return true
		}
	}
	return false
}
