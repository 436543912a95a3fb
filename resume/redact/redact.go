// Package redact removes credentials from storage URLs and from text that
// quotes them: error messages of storage SDKs, reports, JSON documents.
//
// It is about storage URLs and quoting, not about restart decisions: it
// imports only the standard library, and every package that prints a URL
// or quotes input in an error uses it (resume, localblob, s3open, flinkckpt,
// salvage, paimon, kafkaoffset, resumectl), so that no secret a user put in
// a URL is ever printed and hostile input is quoted short.
//
//	redact.URL("s3://AKIA:wJalr/XUtnF@EMI@bucket/wh?region=eu&token=x/y@z")
//	// s3://REDACTED@bucket/wh?region=eu&token=REDACTED
//
//	r := redact.New(rawURL)         // remembers the URL's secret values
//	fmt.Println(r.String(err.Error())) // masks them in any form, and every URL's credentials
//
// # What counts as a secret
//
// The user information of a URL — everything between "://" and the last "@"
// before the query, so that a password with a raw "/" or "@" (half of AWS
// secret keys contain "/") is masked whole, where url.Parse fails or splits
// it — and the value of every query parameter whose name contains, in any
// case, one of: secret, key, token, password, passwd, pwd, credential, sig,
// sas — but for the list limits and cursors of storage APIs that only look
// like one (max-keys, key-marker, continuation-token, pageToken; see
// [IsSecretParam]), which stay readable. A URL given as a query value (endpoint=http://user:pw@host),
// percent-encoded or not, has its own secrets masked the same way (a
// percent-encoded one whole). Where a URL reads two ways (a raw "?" in a
// password, or an "@host/" in a query value), what either reading calls a
// secret is masked. Over-masking is the safe side: a path with an "@" loses
// what comes before it.
//
// URLs are parsed by hand rather than with net/url, because the URLs worth
// masking are often the ones net/url refuses (its error then quotes the
// whole URL). A [Redactor] also masks the exact secret values of the URLs it
// was given, raw, percent-decoded, JSON-escaped and Go-quoted, wherever they
// appear, and so every part of one that a URL parser could quote alone (the
// text before or after a "/", "@", "?", "#", ":", "&", ";" or "=" in it: an
// SDK that parses an endpoint quotes "invalid port \":wJalrXUt\"" of the
// password wJalrXUt/nFEMI…). Values and parts shorter than
// [MinKnownSecret] bytes are left to the structural rules, so that a short
// user name does not mask every word that contains it.
//
// # Errors
//
// Masking returns no errors. [Redactor.Error] wraps an error so that its
// message is masked while errors.Is and errors.As still reach the original.
// [CheckNested] refuses a URL whose query holds a URL with user information
// (an error wrapping [ErrNestedCredentials]), so that an SDK never gets a
// password it would quote later.
package redact

import (
	"net/url"
	"slices"
	"strings"
)

// Mask replaces every secret.
const Mask = "REDACTED"

// MinKnownSecret is the shortest secret value a Redactor masks by its exact
// text.
const MinKnownSecret = 8

// secretWords are the parts of a query parameter name that make its value a
// secret.
var secretWords = []string{"secret", "key", "token", "password", "passwd", "pwd", "credential", "sig", "sas"}

// notSecret are the query parameters of storage APIs whose names contain a
// secret word but whose values are none: list limits and cursors (S3's
// max-keys, key-marker, continuation-token; GCS's pageToken; Azure's
// marker), which an SDK's error quotes and an operator needs to read.
var notSecret = map[string]bool{
	"max-keys": true, "key-marker": true, "maxkeys": true, "max-uploads": true,
	"continuation-token": true, "next-continuation-token": true, "pagetoken": true, "nextpagetoken": true,
	"version-id-marker": true, "upload-id-marker": true, "list-type": true, "encoding-type": true,
}

// IsSecretParam reports whether a query parameter name suggests that its
// value is a secret (case-insensitive): its name contains secret, key,
// token, password, passwd, pwd, credential, sig or sas, and it is not one
// of the storage APIs' list parameters that only look like one (max-keys,
// key-marker, continuation-token, pageToken: limits and cursors).
func IsSecretParam(name string) bool {
	n := strings.ToLower(name)
	if notSecret[n] {
		return false
	}
	for _, w := range secretWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// URL returns raw, a whole URL, with its user information and secret query
// values replaced by Mask.
func URL(raw string) string {
	return mask(raw, spans(raw, 0))
}

// mask replaces the union of the spans of s by Mask.
func mask(s string, sp []span) string {
	if len(sp) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for _, m := range merge(sp) {
		b.WriteString(s[last:m.from])
		b.WriteString(Mask)
		last = m.to
	}
	b.WriteString(s[last:])
	return b.String()
}

// A span is the byte range of one secret in a URL.
type span struct {
	from, to int
	userinfo bool // user information ("user:password"), not a query value
}

// maxNesting bounds how deep URLs inside query values are looked into.
const maxNesting = 4

// spans returns the secrets of raw: its user information, the values of its
// secret-named query parameters, and the secrets of URLs given as query
// values (endpoint=http://user:password@host), percent-encoded or not.
// They may overlap; masking their union is safe under either reading of an
// ambiguous URL.
func spans(raw string, depth int) []span {
	head, auth, tail := split(raw)
	var out []span
	at := strings.LastIndexByte(auth, '@')
	if at >= 0 {
		out = append(out, span{len(head), len(head) + at, true})
	}
	// A password with a raw "/" and then a raw "?" ("user:pa/ss?wd@host/")
	// puts a "/" in what reads as the authority: a ":" before it says a
	// user name started.
	slash := strings.IndexByte(auth, '/')
	userStart := at < 0 && slash >= 0 && strings.Contains(auth[:slash], ":")
	if !strings.Contains(auth[at+1:], "/") || userStart {
		// Still in the authority, and a "?": a password with a raw "?"
		// ends the authority early for any URL parser; an "@host/" after
		// it says where the user information may end instead (at the
		// last "@" before the path's query, as without the "?"). The
		// query as it reads without that (mem://?token=a@b/c) is masked
		// too. (Whether a path began is asked after the last "@", so that
		// masking is stable: a second pass sees the same structure.)
		if at := hostAt(tail); at >= 0 {
			rest := tail[at:]
			q := strings.IndexByte(rest, '?')
			if q < 0 {
				q = len(rest)
			}
			last := strings.LastIndexByte(auth+tail[:at]+rest[:q], '@')
			out = append(out, span{len(head), len(head) + last, true})
			out = append(out, querySpans(rest[q:], len(head)+len(auth)+at+q, depth)...)
		}
	}
	return append(out, querySpans(tail, len(head)+len(auth), depth)...)
}

// querySpans returns the secrets in tail ("?a=b&c=d#f"), which starts at
// offset off of the URL. A "?", "#" or ";" inside counts as a separator
// too, so that a value after a misplaced one is still found.
func querySpans(tail string, off, depth int) []span {
	if tail == "" {
		return nil
	}
	var out []span
	i := 1
	for i <= len(tail) {
		j := strings.IndexAny(tail[i:], "&;#?")
		if j < 0 {
			j = len(tail) - i
		}
		part := tail[i : i+j]
		if name, value, ok := strings.Cut(part, "="); ok && value != "" {
			vfrom := off + i + len(name) + 1
			switch {
			case IsSecretParam(unescape(name)):
				out = append(out, span{vfrom, vfrom + len(value), false})
			case depth < maxNesting && strings.Contains(value, "://"):
				// A URL as a value (endpoint=http://u:p@host): its own
				// secrets. A "?" inside it ended the part already; its
				// query's parameters are this query's.
				for _, s := range spans(value, depth+1) {
					out = append(out, span{vfrom + s.from, vfrom + s.to, s.userinfo})
				}
			case depth < maxNesting && strings.Contains(value, "%"):
				// The same, percent-encoded: masked whole.
				if u := unescape(value); u != value && strings.Contains(u, "://") && len(spans(u, depth+1)) > 0 {
					out = append(out, span{vfrom, vfrom + len(value), false})
				}
			}
		}
		i += j + 1
	}
	return out
}

// merge sorts spans and joins overlapping and adjacent ones.
func merge(sp []span) []span {
	sp = slices.Clone(sp)
	slices.SortFunc(sp, func(a, b span) int { return a.from - b.from })
	out := sp[:0]
	for _, s := range sp {
		if n := len(out); n > 0 && s.from <= out[n-1].to {
			out[n-1].to = max(out[n-1].to, s.to)
			continue
		}
		out = append(out, s)
	}
	return out
}

// hostAt returns the index of the last "@" in s that is followed by a host
// and a "/" ("@bucket/"), or -1. An "@" in a query value (an e-mail
// address) is not followed by a "/".
func hostAt(s string) int {
	found := -1
	for i := 0; i < len(s); i++ {
		if s[i] != '@' {
			continue
		}
		j := i + 1
		for j < len(s) && !strings.ContainsRune("/?#@&=; \t", rune(s[j])) {
			j++
		}
		if j > i+1 && j < len(s) && s[j] == '/' {
			found = i
		}
	}
	return found
}

// split cuts a URL into "scheme://", the part up to the query (authority and
// path) and the rest ("?…" or "").
func split(raw string) (head, auth, tail string) {
	if i := strings.Index(raw, "://"); i >= 0 {
		head, raw = raw[:i+3], raw[i+3:]
	}
	if q := strings.IndexByte(raw, '?'); q >= 0 {
		return head, raw[:q], raw[q:]
	}
	return head, raw, ""
}

func unescape(s string) string {
	if u, err := url.QueryUnescape(s); err == nil {
		return u
	}
	return s
}

// Text returns s with every URL in it ("scheme://…", up to white space, a
// quote, a backslash or an angle bracket) redacted as URL does, and every
// secret-named parameter outside such URLs ("?X-Amz-Signature=…",
// "&token=…") masked too.
func Text(s string) string {
	if !strings.Contains(s, "://") && !strings.ContainsAny(s, "?&;") {
		return s
	}
	var b strings.Builder
	last := 0
	for {
		i := strings.Index(s[last:], "://")
		if i < 0 {
			break
		}
		i += last
		start := i
		for start > last && isSchemeByte(s[start-1]) {
			start--
		}
		end := i + 3
		for end < len(s) && !isTerminator(s[end]) {
			end++
		}
		// One punctuation mark closing a URL in a sentence ("…/x: failed")
		// is not part of it.
		if end > i+4 && strings.IndexByte(":,.;)]", s[end-1]) >= 0 && (end == len(s) || s[end] == ' ') {
			end--
		}
		b.WriteString(params(s[last:start]))
		b.WriteString(URL(s[start:end]))
		last = end
	}
	b.WriteString(params(s[last:]))
	return b.String()
}

// params masks "name=value" after "?", "&" or ";" when the name suggests a
// secret, in text outside URLs.
func params(s string) string {
	if !strings.ContainsAny(s, "?&;") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.IndexAny(s, "?&;")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i+1])
		s = s[i+1:]
		n := 0
		for n < len(s) && isNameByte(s[n]) {
			n++
		}
		if n == 0 || n >= len(s) || s[n] != '=' || !IsSecretParam(s[:n]) {
			continue
		}
		v := n + 1
		for v < len(s) && !isTerminator(s[v]) && s[v] != '&' && s[v] != ';' {
			v++
		}
		if v == n+1 {
			continue // an empty value hides nothing
		}
		b.WriteString(s[:n+1])
		b.WriteString(Mask)
		s = s[v:]
	}
}

func isSchemeByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'
}

func isNameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.' || c == '%'
}

func isTerminator(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', '"', '\'', '`', '<', '>', '\\':
		return true
	}
	return false
}
