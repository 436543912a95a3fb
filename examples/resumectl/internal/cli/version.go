package cli

import (
	"fmt"
	"runtime/debug"
)

// modulePath is resumekit's module.
const modulePath = "github.com/resumekit/resumekit"

// runVersion implements "resumectl version [--timeout DUR]" (and --version): the module
// version resumectl was built from, "(devel)" when the build does not say
// (go run, go build in a checkout, tests), with the VCS revision when the
// build recorded one.
func runVersion(e *env, args []string) error {
	fs := newFlags(e, "version", versionUsage)
	addTimeout(fs, DefaultTimeout) // accepted like every command's; version does no I/O
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("version takes no arguments, got %q", pos)
	}
	bi, _ := debug.ReadBuildInfo()
	fmt.Fprintln(e.stdout, "resumectl "+versionOf(bi))
	return nil
}

// versionOf returns resumekit's version in bi: the main module's when
// resumekit is the main module, else the dependency's; "(devel)" when
// unknown. A recorded VCS revision follows (12 characters, "+dirty" when the
// tree was modified).
func versionOf(bi *debug.BuildInfo) string {
	if bi == nil {
		return "(devel)"
	}
	v := ""
	if bi.Main.Path == modulePath {
		v = bi.Main.Version
	}
	for _, d := range bi.Deps {
		if v == "" && d.Path == modulePath {
			v = d.Version
		}
	}
	if v == "" {
		v = "(devel)"
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev != "" && v == "(devel)" {
		v += " " + rev[:min(12, len(rev))] + dirty
	}
	return v
}
