package paimon

import (
	"fmt"

	"github.com/resumekit/resumekit/internal/version"
	"github.com/resumekit/resumekit/resume/redact"
)

// paimonVersion is a Paimon release as major.minor. The zero value means
// "not declared": resumekit then reads the table as the newest Paimon
// release it knows (1.4) does.
type paimonVersion struct{ v version.Version }

// parsePaimonVersion reads Options.PaimonVersion: "", or "major.minor" with
// an optional patch and suffix ("0.8", "0.8.2", "1.4.1", "1.5-SNAPSHOT"), as
// version.Parse reads them.
func parsePaimonVersion(s string) (paimonVersion, error) {
	if s == "" {
		return paimonVersion{}, nil
	}
	v, err := version.Parse(s)
	if err != nil {
		return paimonVersion{}, fmt.Errorf("paimon: Options.PaimonVersion %s: want major.minor such as 0.8 or 1.4.1", redact.Quote(s))
	}
	return paimonVersion{v}, nil
}

// declared reports whether a version was given.
func (v paimonVersion) declared() bool { return v != paimonVersion{} }

// atLeast reports whether v is major.minor or later; an undeclared version
// counts as the newest.
func (v paimonVersion) atLeast(major, minor int) bool {
	return !v.declared() || v.v.AtLeast(major, minor)
}

func (v paimonVersion) String() string {
	if !v.declared() {
		return "newest (1.4)"
	}
	return v.v.String()
}
