package resume

import (
	_ "embed" // the code table, read from this package's own source
	"regexp"
	"slices"
	"sync"
)

// warningDoc is warning.go, whose doc comment on WarningCode holds the
// table of every code resumekit emits (TestWarningCodeTable keeps it equal
// to the constants of every emitting package).
//
//go:embed warning.go
var warningDoc string

var codeRow = regexp.MustCompile(`(?m)^//\t([a-z]+\.[a-z0-9-]+) `)

var knownCodes = sync.OnceValue(func() []WarningCode {
	var out []WarningCode
	for _, m := range codeRow.FindAllStringSubmatch(warningDoc, -1) {
		out = append(out, WarningCode(m[1]))
	}
	slices.Sort(out)
	return slices.Compact(out)
})

// WarningCodes returns every warning code resumekit emits (the table in
// [WarningCode]'s doc), sorted. A tool that takes codes from its user (a
// gate on warnings, resumectl --fail-on-warning) checks them against it:
// a mistyped code would otherwise never match and gate nothing.
func WarningCodes() []WarningCode { return slices.Clone(knownCodes()) }

// KnownWarningCode reports whether code is one resumekit emits.
func KnownWarningCode(code WarningCode) bool {
	_, ok := slices.BinarySearch(knownCodes(), code)
	return ok
}
