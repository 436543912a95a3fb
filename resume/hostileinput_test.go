package resume_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/resumekit/resumekit/resume"
)

// TestHostileInputGivesShortErrors: a megabyte-long value where a name, a
// time, a duration or a schema belongs — given by the caller or read from a
// stored decision document — gives an error of less than 1 KiB that quotes
// it cut short.
func TestHostileInputGivesShortErrors(t *testing.T) {
	huge := strings.Repeat("\x1b", 1<<20)
	hugeJSON, _ := json.Marshal(huge)
	h := string(hugeJSON)
	doc := func(s string) []byte { return []byte(s) }
	for name, call := range map[string]func() error{
		"ParseGuarantee":      func() error { _, err := resume.ParseGuarantee(huge); return err },
		"ParseFailurePolicy":  func() error { _, err := resume.ParseFailurePolicy(huge); return err },
		"Verdict":             func() error { var v resume.Verdict; return v.UnmarshalText([]byte(huge)) },
		"Guarantee.Unmarshal": func() error { var g resume.Guarantee; return g.UnmarshalText([]byte(huge)) },
		"schema": func() error {
			var d resume.Decision
			return d.UnmarshalJSON(doc(`{"schema":` + h + `}`))
		},
		"decided_at": func() error {
			var d resume.Decision
			return d.UnmarshalJSON(doc(`{"schema":"resumekit.decision/v1","decided_at":` + h + `}`))
		},
		"max_age": func() error {
			var d resume.Decision
			return d.UnmarshalJSON(doc(`{"schema":"resumekit.decision/v1","policy":{"min_guarantee":"replay","max_age":` + h + `}}`))
		},
		"outcome resolver": func() error {
			var d resume.Decision
			return d.UnmarshalJSON(doc(`{"schema":"resumekit.decision/v1","considered":[{"resolver":` + h + `}]}`))
		},
		"candidate resolver": func() error {
			var d resume.Decision
			return d.UnmarshalJSON(doc(`{"schema":"resumekit.decision/v1","chosen":{"resolver":` + h + `}}`))
		},
		"candidate at": func() error {
			var c resume.Candidate
			return c.UnmarshalJSON(doc(`{"resolver":"r","kind":"k","guarantee":"replay","at":` + h + `}`))
		},
		"PositionAs kind": func() error {
			_, err := resume.PositionAs[resume.Positions](&resume.RawPosition{PositionKind: huge}, resume.KindAll)
			return err
		},
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
