package redact

import (
	"errors"
	"net/url"
	"strings"
)

// ParseError returns an error for a failed url.Parse of a URL that may hold
// credentials: net/url's *url.Error quotes the whole URL, and its inner
// errors quote the offending part ("invalid port \":wJalr\" after host" is
// the first half of a password with a raw "/"). The result keeps what went
// wrong without any quoted text; errors.As still reaches the *url.Error.
// Other errors come back unchanged.
func ParseError(err error) error {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return err
	}
	msg := "not a valid URL"
	if ue.Err != nil {
		msg = dropQuoted(ue.Err.Error())
	}
	return &maskedError{msg: msg, err: err}
}

// dropQuoted removes every double-quoted part of s.
func dropQuoted(s string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '"')
		if i < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		j := i + 1
		for j < len(s) && s[j] != '"' {
			if s[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(s) {
			break // an unterminated quote: drop the rest
		}
		s = s[j+1:]
	}
	return strings.Join(strings.Fields(b.String()), " ")
}
