package localblob

import (
	"path/filepath"
	"strings"
	"testing"
)

// FuzzKey: a key checkKey accepts is a local path (no "..", not absolute,
// not empty) that names the same segments; a key it refuses is reported,
// never changed into another.
func FuzzKey(f *testing.F) {
	for _, s := range []string{"consumer/consumer-job", "../x", "a//b", "/etc/passwd", "a/./b", "a\x00b", "a/", "chk-7/_metadata", `a\b`, "…/x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, key string) {
		p, err := checkKey(key)
		if err != nil {
			return
		}
		if !filepath.IsLocal(p) || filepath.ToSlash(p) != key || strings.Contains("/"+key+"/", "/../") {
			t.Fatalf("checkKey(%q) accepted %q", key, p)
		}
		id, last, err := parseToken(makeToken(7, key))
		if err != nil || id != 7 || last != key {
			t.Fatalf("token round trip of %q: %d %q %v", key, id, last, err)
		}
	})
}
