package resume

import (
	"maps"
	"slices"
	"strings"
)

// ShellQuote returns arg as one POSIX shell word: as is when every byte is
// in [A-Za-z0-9._:/=@%+-], else in single quotes (a single quote inside
// becomes the four characters quote, backslash, quote, quote).
// Run lines built from storage (a snapshot path inferred from _metadata)
// are printed with it, so that a pasted line never runs what a path holds
// (an authority like ckpt$(id)).
func ShellQuote(arg string) string {
	if arg != "" && strings.IndexFunc(arg, func(r rune) bool { return !shellSafe(r) }) < 0 {
		return arg
	}
	return "'" + strings.ReplaceAll(arg, "'", `'\''`) + "'"
}

func shellSafe(r rune) bool {
	switch {
	case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
		return true
	}
	return strings.ContainsRune("._:/=@%+-", r)
}

// RunLine is the flink run command line of a launch: its arguments, then
// each -D option in key order, every word shell-quoted ([ShellQuote]);
// "" when the launch has no arguments.
func RunLine(l Launch) string {
	if len(l.Args) == 0 {
		return ""
	}
	words := []string{"flink", "run"}
	for _, a := range l.Args {
		words = append(words, ShellQuote(a))
	}
	for _, k := range slices.Sorted(maps.Keys(l.Config)) {
		words = append(words, ShellQuote("-D"+k+"="+l.Config[k]))
	}
	return strings.Join(words, " ")
}
