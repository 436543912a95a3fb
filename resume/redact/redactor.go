package redact

import (
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Secrets returns the secret values of a URL (user information, user name,
// password, secret query values, and those of URLs in its query values) as
// written and percent-decoded.
func Secrets(raw string) []string {
	var out []string
	add := func(s string) {
		if s == "" || slices.Contains(out, s) {
			return
		}
		out = append(out, s)
		if u, err := url.PathUnescape(s); err == nil && u != s {
			out = append(out, u)
		}
		if u, err := url.QueryUnescape(s); err == nil && u != s {
			out = append(out, u)
		}
	}
	for _, s := range spans(raw, 0) {
		info := raw[s.from:s.to]
		add(info)
		if user, pass, ok := strings.Cut(info, ":"); ok && s.userinfo {
			add(user)
			add(pass)
		}
	}
	return out
}

// Redactor masks the secrets of known URLs wherever they appear, and every
// URL's credentials. The zero value masks by structure only. It is safe for
// concurrent use once made.
type Redactor struct {
	mu    sync.RWMutex
	known []string        // longest first
	seen  map[string]bool // known, as a set
}

// New returns a Redactor for the secrets of the given URLs.
func New(urls ...string) *Redactor {
	r := &Redactor{}
	r.Add(urls...)
	return r
}

// Add registers the secrets of more URLs. It is safe to call while other
// goroutines print through r.
func (r *Redactor) Add(urls ...string) {
	var secrets []string
	for _, u := range urls {
		secrets = append(secrets, Secrets(u)...)
	}
	r.AddSecrets(secrets...)
}

// AddSecrets registers secret values that are no URL — a password parsed
// out of a database connection string — so that every later output masks
// them (and their pieces and quoted forms) wherever they appear. It is
// safe to call while other goroutines print through r.
func (r *Redactor) AddSecrets(secrets ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seen == nil {
		r.seen = map[string]bool{}
	}
	for _, s := range secrets {
		for _, p := range pieces(s) {
			for _, v := range forms(p) {
				if len(v) >= MinKnownSecret && !r.seen[v] {
					r.seen[v] = true
					r.known = append(r.known, v)
				}
			}
		}
	}
	slices.SortStableFunc(r.known, func(a, b string) int { return len(b) - len(a) })
}

// pieceDelims are the characters at which a URL parser may cut a secret
// and quote one side: url.Parse quotes a password with a raw "/" up to it
// (invalid port ":wJalrXUt" after host).
const pieceDelims = "/@?#:&;="

// maxPieceCuts bounds the cut points pieces considers in one secret (the
// parts are quadratic in them).
const maxPieceCuts = 16

// pieces returns s and, when a URL parser could cut it at pieceDelims,
// every part of it between two such cuts (or an end) that it could quote
// alone.
func pieces(s string) []string {
	cuts := []int{-1}
	for i := 0; i < len(s) && len(cuts) <= maxPieceCuts; i++ {
		if strings.IndexByte(pieceDelims, s[i]) >= 0 {
			cuts = append(cuts, i)
		}
	}
	cuts = append(cuts, len(s))
	out := []string{s}
	for a := 0; a < len(cuts); a++ {
		for b := a + 1; b < len(cuts); b++ {
			if p := s[cuts[a]+1 : cuts[b]]; len(p) >= MinKnownSecret && !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// forms are the ways a value may be printed: as is, JSON-escaped (with and
// without HTML escaping) and Go-quoted.
func forms(s string) []string {
	out := []string{s}
	if q := strconv.Quote(s); len(q) > 2 {
		out = append(out, q[1:len(q)-1])
	}
	if j, err := json.Marshal(s); err == nil && len(j) > 2 {
		out = append(out, string(j[1:len(j)-1]))
		// Some JSON writers escape "/" too.
		out = append(out, strings.ReplaceAll(string(j[1:len(j)-1]), "/", `\/`))
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(s) == nil {
		if j := strings.TrimSpace(b.String()); len(j) > 2 {
			out = append(out, j[1:len(j)-1])
		}
	}
	return out
}

// String returns s with the known secrets and every URL's credentials
// masked.
func (r *Redactor) String(s string) string {
	if r != nil {
		r.mu.RLock()
		defer r.mu.RUnlock()
		// Every occurrence of every known secret, overlapping ones too:
		// their union is masked, so that no tail of one outlives another.
		var sp []span
		for _, k := range r.known {
			for i := 0; ; {
				j := strings.Index(s[i:], k)
				if j < 0 {
					break
				}
				sp = append(sp, span{i + j, i + j + len(k), false})
				i += j + 1
			}
		}
		s = mask(s, sp)
	}
	return Text(s)
}

// Error returns err with a masked message; errors.Is and errors.As still see
// err. A nil err stays nil.
func (r *Redactor) Error(err error) error {
	if err == nil {
		return nil
	}
	return &maskedError{msg: r.String(err.Error()), err: err}
}

type maskedError struct {
	msg string
	err error
}

func (e *maskedError) Error() string { return e.msg }
func (e *maskedError) Unwrap() error { return e.err }
