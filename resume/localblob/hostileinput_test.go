package localblob_test

import (
	"strings"
	"testing"

	"github.com/resumekit/resumekit/resume/localblob"
)

// TestHostileInputGivesShortErrors: a megabyte-long directory or file URL
// gives an error of less than 1 KiB, the input quoted cut short.
func TestHostileInputGivesShortErrors(t *testing.T) {
	huge := strings.Repeat("d", 1<<20)
	for name, call := range map[string]func() error{
		"OpenBucket":        func() error { _, err := localblob.OpenBucket("/"+huge, nil); return err },
		"OpenBucket escape": func() error { _, err := localblob.OpenBucket("/tmp/\x1b"+huge, nil); return err },
		"OpenFile":          func() error { _, err := localblob.OpenFile("/" + huge); return err },
		"host":              func() error { _, _, err := localblob.LocalPath("file://" + huge + "/dir"); return err },
		"user":              func() error { _, _, err := localblob.LocalPath("file://" + huge + "@localhost/dir"); return err },
		"query":             func() error { _, _, err := localblob.LocalPath("file:///dir?" + huge); return err },
		"fragment":          func() error { _, _, err := localblob.LocalPath("file:///" + huge + "#x"); return err },
		"parse":             func() error { _, _, err := localblob.LocalPath("file:///" + huge + "%zz"); return err },
	} {
		err := call()
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		if msg := err.Error(); len(msg) > 1024 || strings.Contains(msg, "\x1b") {
			t.Errorf("%s: error of %d bytes: %.200q", name, len(msg), msg)
		}
	}
}
