package keyprefix

import "testing"

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"": "", ".": "", "/": "", "//": "", "ck": "ck/", "ck/": "ck/", "/ck/": "ck/", "a/b": "a/b/", "/a/b//": "a/b/", "./a": "./a/",
	} {
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}
