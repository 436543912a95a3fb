package paimon

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/resumekit/resumekit/resume/redact"
)

// paimonVersion is a Paimon release as major.minor. The zero value means
// "not declared": resumekit then reads the table as the newest Paimon
// release it knows (1.4) does.
type paimonVersion struct {
	major, minor int
}

// parsePaimonVersion reads Options.PaimonVersion: "", or "major.minor" with
// an optional patch and suffix ("0.8", "0.8.2", "1.4.1", "1.5-SNAPSHOT").
func parsePaimonVersion(s string) (paimonVersion, error) {
	if s == "" {
		return paimonVersion{}, nil
	}
	bad := fmt.Errorf("paimon: Options.PaimonVersion %s: want major.minor such as 0.8 or 1.4.1", redact.Quote(s))
	rest := s
	if i := strings.IndexAny(rest, "-+ "); i >= 0 {
		rest = rest[:i]
	}
	parts := strings.Split(rest, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return paimonVersion{}, bad
	}
	var nums [3]int
	for i, p := range parts {
		if p == "" || len(p) > 4 || strings.TrimLeft(p, "0123456789") != "" {
			return paimonVersion{}, bad
		}
		nums[i], _ = strconv.Atoi(p)
	}
	if nums[0] == 0 && nums[1] == 0 {
		return paimonVersion{}, bad
	}
	return paimonVersion{major: nums[0], minor: nums[1]}, nil
}

// declared reports whether a version was given.
func (v paimonVersion) declared() bool { return v != paimonVersion{} }

// atLeast reports whether v is major.minor or later; an undeclared version
// counts as the newest.
func (v paimonVersion) atLeast(major, minor int) bool {
	if !v.declared() {
		return true
	}
	return v.major > major || v.major == major && v.minor >= minor
}

func (v paimonVersion) String() string {
	if !v.declared() {
		return "newest (1.4)"
	}
	return fmt.Sprintf("%d.%d", v.major, v.minor)
}
