package cli

import (
	"bytes"
	"flag"
	"io"
	"path/filepath"
	"strings"
	"sync"
)

// A local path is opened as a localblob bucket confined to the directory
// named (a chk-<n> dir to its job dir), so its keys are relative to that
// directory: 9f2c…/shared/sst-3. Libraries name keys in their reasons and
// errors; for people, resumectl shows them as the paths they are:
// /data/ck/9f2c…/shared/sst-3. JSON documents keep bucket keys.
//
// localblob tells (Options.OnKey) every key and listing prefix a command
// used in each local bucket. A word of output that starts with the first
// segment of such a key and a slash is shown below that bucket's directory;
// so is a quoted string that is exactly such a key without a slash (a file
// at the top of the directory, "_metadata") or the empty prefix (the
// directory itself, `flinkckpt: "": nothing at all is stored there`). When
// keys of two directories share a first segment (or both buckets listed
// everything), which one a message means is not known and the words are
// left as they are — unless the first two segments tell: Flink writes a
// changelog's DSTL files to <base>/<jobId>/dstl/<uuid>, so with
// --flink-extra-root the checkpoint root's keys and the DSTL root's keys
// share the job id as first segment, while <jobId>/dstl is used in one
// directory only (and <jobId>/shared, <jobId>/chk-7 in the other).

// ambiguous marks a segment or key used in more than one directory.
const ambiguous = "\x00"

// localPaths holds, for the local buckets of a command, the keys it used in
// them: first segments, and keys without a slash.
type localPaths struct {
	mu sync.Mutex
	// segs maps a first segment to the directory (slash form, without a
	// trailing slash: "" for the file-system root) of the bucket whose keys
	// start with it, or to ambiguous.
	segs map[string]string
	// tops does the same for keys without a slash and the empty prefix.
	tops map[string]string
	// segs2 does the same for the first two segments ("job/dstl") of keys
	// with a second segment; it is read only for a first segment that is
	// ambiguous.
	segs2 map[string]string
	// raw is set when stdout carries JSON: there a key is data.
	raw bool
}

// dir returns the localblob Options.OnKey hook of a bucket confined to the
// absolute directory dir.
func (p *localPaths) dir(dir string) func(key string) {
	dir = strings.TrimSuffix(filepath.ToSlash(dir), "/")
	return func(key string) {
		p.mu.Lock()
		defer p.mu.Unlock()
		if seg, rest, ok := strings.Cut(key, "/"); ok {
			if seg != "" {
				p.segs = note(p.segs, seg, dir)
				if seg2, _, _ := strings.Cut(rest, "/"); seg2 != "" {
					p.segs2 = note(p.segs2, seg+"/"+seg2, dir)
				}
			}
			return
		}
		p.tops = note(p.tops, key, dir)
	}
}

func note(m map[string]string, k, dir string) map[string]string {
	if m == nil {
		m = map[string]string{}
	}
	if d, seen := m[k]; seen && d != dir {
		dir = ambiguous
	}
	m[k] = dir
	return m
}

// keyStart reports whether a key may start after c: a key starts a message,
// a word, a quoted string, a parenthesis or a list item; inside a URL or a
// longer path it follows a slash and is left alone.
func keyStart(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '"', '\'', '(', '[', '=', ',', ';', ':':
		return true
	}
	return false
}

// segEnd reports whether c cannot be part of a key's first segment.
func segEnd(c byte) bool {
	return keyStart(c) || c == '/' || c == ')' || c == ']'
}

// rewrite shows keys of the noted buckets as absolute paths.
func (p *localPaths) rewrite(b []byte) []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.segs) == 0 && len(p.tops) == 0 {
		return b
	}
	var out []byte
	last := 0
	insert := func(at int, dir string) {
		out = append(out, b[last:at]...)
		out = append(out, dir...)
		out = append(out, '/')
		last = at
	}
	for i := 0; i < len(b); i++ {
		if i > 0 && !keyStart(b[i-1]) {
			continue
		}
		if i > 0 && b[i-1] == '"' {
			// "key" or "": a whole quoted key without a slash.
			if j := bytes.IndexByte(b[i:], '"'); j >= 0 {
				if dir, ok := p.tops[string(b[i:i+j])]; ok && dir != ambiguous {
					insert(i, dir)
					i += j
					continue
				}
			}
		}
		j := i
		for j < len(b) && !segEnd(b[j]) {
			j++
		}
		if j == i || j == len(b) || b[j] != '/' {
			continue
		}
		dir, ok := p.segs[string(b[i:j])]
		if ok && dir == ambiguous {
			// the second segment may tell which directory (job/dstl/…)
			k := j + 1
			for k < len(b) && !segEnd(b[k]) {
				k++
			}
			dir, ok = p.segs2[string(b[i:k])]
			if k == j+1 {
				ok = false
			}
		}
		if ok && dir != ambiguous {
			insert(i, dir)
			i = j
		}
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

// stdoutRaw reports whether stdout carries JSON.
func (p *localPaths) stdoutRaw() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.raw
}

// noteFormat records whether a command's stdout is JSON (left as it is:
// there a key is data).
func (e *env) noteFormat(fs *flagSet) {
	fs.Visit(func(f *flag.Flag) {
		switch {
		case f.Name == "json" && f.Value.String() == "true",
			f.Name == "format" && f.Value.String() != "text":
			e.paths.mu.Lock()
			e.paths.raw = true
			e.paths.mu.Unlock()
		}
	})
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
	if (pw.stdout && pw.e.paths.stdoutRaw()) || !bytes.ContainsAny(b, `/"`) {
		return pw.w.Write(b)
	}
	if _, err := pw.w.Write(pw.e.paths.rewrite(b)); err != nil {
		return 0, err
	}
	return len(b), nil
}
