package resume_test

import (
	"testing"

	"github.com/resumekit/resumekit/resume"
)

// Issue 31: an authority like ckpt$(id), inferred from _metadata, was
// printed unquoted in "run: flink run -s …" and ran when pasted into a
// shell. Every word outside [A-Za-z0-9._:/=@%+-] is single-quoted.
func TestRunLineQuotes(t *testing.T) {
	for arg, want := range map[string]string{
		"s3a://b/ck/job/chk-42":            "s3a://b/ck/job/chk-42",
		"s3a://ckpt$(id)/ck/job/chk-42":    "'s3a://ckpt$(id)/ck/job/chk-42'",
		"s3a://b/a b/chk-1":                "'s3a://b/a b/chk-1'",
		"s3a://b/it's/chk-1":               `'s3a://b/it'\''s/chk-1'`,
		"s3a://b/`touch x`/chk-1":          "'s3a://b/`touch x`/chk-1'",
		"s3a://b/x;rm -rf ~/chk-1":         "'s3a://b/x;rm -rf ~/chk-1'",
		"s3a://b/line\nbreak":              "'s3a://b/line\nbreak'",
		"":                                 "''",
		"-s":                               "-s",
		"hdfs://nn:8020/ck/x%20y+z@q=1/-y": "hdfs://nn:8020/ck/x%20y+z@q=1/-y",
	} {
		if got := resume.ShellQuote(arg); got != want {
			t.Errorf("ShellQuote(%q) = %s, want %s", arg, got, want)
		}
	}
	l := resume.Launch{Args: []string{"-s", "s3a://ckpt$(id)/ck/j/chk-4", "-claimMode", "CLAIM"}, Config: map[string]string{"a.b": "x y"}}
	if got, want := resume.RunLine(l), `flink run -s 's3a://ckpt$(id)/ck/j/chk-4' -claimMode CLAIM '-Da.b=x y'`; got != want {
		t.Errorf("RunLine = %s, want %s", got, want)
	}
}
