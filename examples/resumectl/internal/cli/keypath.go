package cli

import (
	"bytes"
	"flag"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// A local path is opened as a bucket on the file-system root (so that a
// checkpoint's ../shared files stay reachable), which makes its keys the
// absolute path without the leading slash: tmp/rk/ck/chk-41/_metadata.
// Libraries name keys in their reasons and errors; for people, resumectl
// shows them as the paths they are: /tmp/rk/ck/chk-41/_metadata.

// localPaths holds, per file-system root ("/", or "C:/" on Windows), the
// first path segments of the local locations a command was given.
type localPaths struct {
	segs map[string][]string // root -> first segments
	res  []pathRule
}

type pathRule struct {
	re   *regexp.Regexp
	root string
}

// add notes a location argument; URLs other than file:// are not local.
func (p *localPaths) add(raw string) {
	if raw == "" || (strings.Contains(raw, "://") && !strings.HasPrefix(raw, "file://")) {
		return
	}
	path := strings.TrimPrefix(raw, "file://")
	abs, err := filepath.Abs(filepath.FromSlash(path))
	if err != nil {
		return
	}
	root := filepath.ToSlash(filepath.VolumeName(abs)) + "/"
	rel := strings.TrimPrefix(filepath.ToSlash(abs), root)
	seg, _, _ := strings.Cut(rel, "/")
	if seg == "" || slices.Contains(p.segs[root], seg) {
		return
	}
	if p.segs == nil {
		p.segs = map[string][]string{}
	}
	p.segs[root] = append(p.segs[root], seg)
	p.res = p.res[:0]
	for r, segs := range p.segs {
		alts := make([]string, len(segs))
		for i, s := range segs {
			alts[i] = regexp.QuoteMeta(s + "/")
		}
		// A key starts a message, a word, a quoted string, a parenthesis
		// or a list item; inside a URL or a longer path it follows a slash
		// and is left alone.
		p.res = append(p.res, pathRule{re: regexp.MustCompile(`(^|[\s"'(\[=,;:])(` + strings.Join(alts, "|") + `)`), root: r})
	}
}

// rewrite shows keys under the noted locations as absolute paths.
func (p *localPaths) rewrite(b []byte) []byte {
	for _, r := range p.res {
		b = r.re.ReplaceAll(b, []byte("${1}"+r.root+"${2}"))
	}
	return b
}

// noteLocations records the local locations among a command's arguments —
// flags whose value is a URL, PATH or DIR, and positionals — and whether its
// stdout is JSON (left as it is: there a key is data).
func (e *env) noteLocations(fs *flagSet, pos []string) {
	fs.Visit(func(f *flag.Flag) {
		switch arg, _ := flag.UnquoteUsage(f); arg {
		case "URL", "PATH", "DIR", "PATH|URL":
			e.paths.add(f.Value.String())
		}
		switch {
		case f.Name == "json" && f.Value.String() == "true",
			f.Name == "format" && f.Value.String() != "text":
			e.rawStdout = true
		}
	})
	// Positionals are locations in every command that takes them (URL,
	// PATH|URL, SNAPSHOT): their usage starts with the placeholder.
	if f := strings.Fields(fs.usage); len(f) > 0 && regexp.MustCompile(`^[A-Z][A-Z|]*$`).MatchString(f[0]) {
		for _, p := range pos {
			e.paths.add(p)
		}
	}
}

// pathWriter writes through env's key rewriting: on stderr always, on
// stdout unless it carries JSON. Every write is rewritten on its own: the
// report writers print whole lines, tabwriter whole cells.
type pathWriter struct {
	w      io.Writer
	e      *env
	stdout bool
}

func (pw *pathWriter) Write(b []byte) (int, error) {
	if len(pw.e.paths.res) == 0 || (pw.stdout && pw.e.rawStdout) || !bytes.Contains(b, []byte("/")) {
		return pw.w.Write(b)
	}
	if _, err := pw.w.Write(pw.e.paths.rewrite(b)); err != nil {
		return 0, err
	}
	return len(b), nil
}
