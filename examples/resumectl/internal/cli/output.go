package cli

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/resumekit/resumekit/resume/redact"
)

// output is what every command writes to: it masks secrets (the known ones
// of the URLs on the command line, and every URL's credentials) and escapes
// characters a terminal would act on, one line at a time, so that no storage
// name, SDK message or panic can print a secret or an escape sequence. After
// close, writes are dropped: a command abandoned at its deadline cannot
// write behind the final message.
type output struct {
	mu     sync.Mutex
	w      io.Writer
	red    *redact.Redactor
	buf    []byte
	closed bool
	// maxLine, when positive, truncates longer lines (stderr: an error
	// quoting megabytes of hostile input stays short).
	maxLine int
	// statusShown says a live status line (status) is on the terminal:
	// the next line clears it first.
	statusShown bool
}

// clearLine returns the cursor to the line's start and erases the line.
const clearLine = "\r\x1b[K"

// status shows line as the live status line of a terminal, replacing the
// previous one ("" clears it); every control character in line is escaped,
// and the next whole line written clears it first.
func (o *output) status(line string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed || (line == "" && !o.statusShown) {
		return
	}
	if line == "" {
		io.WriteString(o.w, clearLine)
		o.statusShown = false
		return
	}
	io.WriteString(o.w, clearLine+o.clean(line))
	o.statusShown = true
}

// maxErrLine bounds a line of stderr.
const maxErrLine = 2000

func newOutput(w io.Writer, red *redact.Redactor, maxLine int) *output {
	return &output{w: w, red: red, maxLine: maxLine}
}

func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return len(p), nil
	}
	o.buf = append(o.buf, p...)
	for {
		i := bytes.IndexByte(o.buf, '\n')
		if i < 0 {
			break
		}
		if o.statusShown {
			io.WriteString(o.w, clearLine)
			o.statusShown = false
		}
		if _, err := io.WriteString(o.w, o.clean(string(o.buf[:i]))+"\n"); err != nil {
			return len(p), err
		}
		o.buf = o.buf[i+1:]
	}
	return len(p), nil
}

// close writes what is left of the last line and drops later writes.
func (o *output) close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return
	}
	o.closed = true
	if o.statusShown {
		io.WriteString(o.w, clearLine)
		o.statusShown = false
	}
	if len(o.buf) > 0 {
		io.WriteString(o.w, o.clean(string(o.buf)))
		o.buf = nil
	}
}

func (o *output) clean(line string) string {
	line = o.red.String(line) // before any cut, so that no secret is cut in two
	if o.maxLine > 0 && len(line) > o.maxLine {
		cut := o.maxLine
		for cut > 0 && !utf8.RuneStart(line[cut]) {
			cut--
		}
		line = fmt.Sprintf("%s… (line of %d bytes cut)", line[:cut], len(line))
	}
	return escapeControls(line)
}

// escapeControls escapes what a terminal would interpret or hide: C0
// controls but tab, DEL and invalid UTF-8 bytes as \xHH, C1 controls,
// invisible format characters (bidi controls, zero-width spaces, BOM) and
// other characters that print as nothing (variation selectors, Hangul
// fillers) as \uHHHH — both valid inside JSON strings, where only the latter can occur
// (encoding/json escapes the others itself).
func escapeControls(s string) string {
	clean := true
	for _, r := range s {
		if needsEscape(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r < 0x20 && r != '\t' || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case needsEscape(r) && r > 0xffff:
			// JSON's \u takes four hex digits: a surrogate pair.
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
		case needsEscape(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func needsEscape(r rune) bool {
	return r < 0x20 && r != '\t' || r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == utf8.RuneError || unicode.Is(unicode.Cf, r) ||
		unicode.Is(unicode.Variation_Selector, r) || invisible[r]
}

// invisible are characters that print as nothing without being format
// characters (as paimon.ValidateID refuses them in ids).
var invisible = map[rune]bool{'\u034F': true, '\u115F': true, '\u1160': true, '\u3164': true, '\uFFA0': true, '\u2800': true}

// urlArgs returns the URLs among the arguments, whose secrets the output
// masks: every argument that holds one ("s3://…", "--flag=s3://…"), and,
// when it holds several side by side (--flink-extra-root's
// FLINKURI=BUCKETURL), each on its own, so that a secret's exact text is
// known even where no URL structure surrounds it. A URL in another's query
// (endpoint=http://…) stays part of it.
func urlArgs(args []string) []string {
	var out []string
	for _, a := range args {
		var starts []int
		for i := 0; ; {
			j := strings.Index(a[i:], "://")
			if j < 0 {
				break
			}
			s := i + j
			for s > 0 && isSchemeByte(a[s-1]) {
				s--
			}
			if n := len(starts); n == 0 || !strings.ContainsAny(a[starts[n-1]:s], "?#") {
				starts = append(starts, s)
			}
			i += j + 3
		}
		if len(starts) == 0 {
			continue
		}
		out = append(out, a)
		if len(starts) == 1 {
			continue
		}
		for n, s := range starts {
			end := len(a)
			if n+1 < len(starts) {
				end = starts[n+1]
			}
			out = append(out, strings.TrimSuffix(a[s:end], "="))
		}
	}
	return out
}

// isSchemeByte reports whether c may be part of a URL scheme.
func isSchemeByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'
}
