// Package version reads the MAJOR.MINOR release numbers that Flink and
// Paimon versions are given as, once for both: flinkckpt (the new job's
// Flink version, for the run line), flinkckpt/jobgraph (a compiled plan's
// Flink version, for its uid rules) and paimon (Options.PaimonVersion).
package version

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/resumekit/resumekit/resume/redact"
)

// Version is a release as major.minor; a patch and a suffix are dropped.
// The zero value means unknown (not given).
type Version struct{ Major, Minor int }

// ErrSyntax is returned by Parse for anything but MAJOR.MINOR[.PATCH] with
// an optional suffix. Callers wrap it with the field and the input.
var ErrSyntax = errors.New("want MAJOR.MINOR")

// Parse reads "1.20", "1.19.1", "v1.20", "1.20-SNAPSHOT" or "1.4.1+build":
// surrounding space and a leading "v" are dropped, and everything from the
// first '-', '+' or space; then two or three dot-separated numbers of one
// to four digits each must remain. 0.0 is not a release. Callers check
// further ranges (Flink has no 0.x).
func Parse(s string) (Version, error) {
	t := strings.TrimPrefix(strings.TrimSpace(s), "v")
	if i := strings.IndexAny(t, "-+ "); i >= 0 {
		t = t[:i]
	}
	parts := strings.Split(t, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return Version{}, ErrSyntax
	}
	var n [3]int
	for i, p := range parts {
		if p == "" || len(p) > 4 || strings.TrimLeft(p, "0123456789") != "" {
			return Version{}, ErrSyntax
		}
		n[i], _ = strconv.Atoi(p)
	}
	if n[0] == 0 && n[1] == 0 {
		return Version{}, ErrSyntax
	}
	return Version{n[0], n[1]}, nil
}

// ParseFlink reads a Flink version as Parse does; Flink has no 0.x. Its
// error names the input but not the field; callers say which.
func ParseFlink(s string) (Version, error) {
	v, err := Parse(s)
	if err != nil || v.Major < 1 {
		return Version{}, fmt.Errorf("Flink version %s: want MAJOR.MINOR such as 1.20", redact.Quote(s))
	}
	return v, nil
}

// String is "major.minor".
func (v Version) String() string { return strconv.Itoa(v.Major) + "." + strconv.Itoa(v.Minor) }

// Known reports whether v is not the zero Version.
func (v Version) Known() bool { return v != Version{} }

// Less reports whether v is before major.minor.
func (v Version) Less(major, minor int) bool {
	return v.Major < major || (v.Major == major && v.Minor < minor)
}

// AtLeast reports whether v is major.minor or later.
func (v Version) AtLeast(major, minor int) bool { return !v.Less(major, minor) }
