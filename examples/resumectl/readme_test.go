package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/resumekit/resumekit/examples/resumectl/internal/cli"
)

// tourBlocks returns the commands of the README's tour ("$ resumectl …"
// lines in code blocks) with the output lines shown after each.
func tourBlocks(t *testing.T) (cmds [][]string, shown [][]string) {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	start := strings.Index(text, "## A 5-minute tour")
	if start < 0 {
		t.Fatal("README has no tour")
	}
	text = text[start:]
	if end := strings.Index(text[3:], "\n## "); end >= 0 {
		text = text[:end+3]
	}
	in, indent := false, ""
	for _, l := range strings.Split(text, "\n") {
		trimmed := strings.TrimLeft(l, " ")
		if strings.HasPrefix(trimmed, "```") {
			in, indent = !in, l[:len(l)-len(trimmed)]
			continue
		}
		if !in {
			continue
		}
		l = strings.TrimPrefix(l, indent)
		if cmd, ok := strings.CutPrefix(l, "$ resumectl "); ok {
			cmds = append(cmds, strings.Fields(cmd))
			shown = append(shown, nil)
		} else if len(cmds) > 0 {
			shown[len(shown)-1] = append(shown[len(shown)-1], l)
		}
	}
	return cmds, shown
}

// shownRE turns a line the README shows into a pattern: "…" stands for
// anything, runs of spaces (table columns) for any run of spaces.
func shownRE(line string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	for i, part := range strings.Split(line, "…") {
		if i > 0 {
			b.WriteString(".*?")
		}
		for j, words := range regexp.MustCompile(` {2,}`).Split(part, -1) {
			if j > 0 {
				b.WriteString(` +`)
			}
			b.WriteString(regexp.QuoteMeta(words))
		}
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

// TestReadmeTour runs every command of the README's tour against the demo's
// data and checks that each line the README shows is printed, in order.
func TestReadmeTour(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "rk")
	var out, errOut strings.Builder
	if code := cli.Main([]string{"demo", "--keep", dir}, &out, &errOut); code != cli.ExitOK {
		t.Fatalf("demo: exit %d: %s", code, errOut.String())
	}
	cmds, shown := tourBlocks(t)
	if len(cmds) < 3 {
		t.Fatalf("found %d commands in the README's tour", len(cmds))
	}
	for i, args := range cmds {
		for j := range args {
			args[j] = strings.ReplaceAll(args[j], "/tmp/rk", dir)
		}
		out.Reset()
		errOut.Reset()
		code := cli.Main(args, &out, &errOut)
		if code != cli.ExitOK {
			t.Errorf("resumectl %s: exit %d: %s", strings.Join(args, " "), code, errOut.String())
			continue
		}
		lines := strings.Split(out.String(), "\n")
		next := 0
		for _, want := range shown[i] {
			if strings.TrimSpace(want) == "…" || strings.TrimSpace(want) == "" {
				continue
			}
			re := shownRE(strings.ReplaceAll(want, "/tmp/rk", dir))
			found := false
			for next < len(lines) && !found {
				found = re.MatchString(lines[next])
				next++
			}
			if !found {
				t.Errorf("resumectl %s: the README shows\n\t%s\nwhich is not printed (in order):\n%s", strings.Join(args, " "), want, out.String())
				break
			}
		}
	}
}

// TestReadmeFirstSteps: the README says how the tour's bare resumectl gets
// on the PATH (go install ./examples/resumectl from the clone, or go run)
// before the tour's first command, and that path is this main package.
func TestReadmeFirstSteps(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	install := strings.Index(text, "go install ./examples/resumectl")
	first := strings.Index(text, "$ resumectl ")
	if install < 0 || first < 0 || install > first || !strings.Contains(text[:first], "go run ./examples/resumectl") {
		t.Errorf("the README does not say go install ./examples/resumectl (or go run) before the tour's first command")
	}
	if _, err := os.Stat("main.go"); err != nil || !strings.HasSuffix(filepath.ToSlash(mustAbs(t, ".")), "/examples/resumectl") {
		t.Errorf("./examples/resumectl is not this package: %v", err)
	}
}

func mustAbs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
