package flinkckpt_test

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
)

// TestOneClassificationOnBuiltTrees: List, Inspect and Resolve give each
// tree the tests build one verdict (issue 30 item 1): complete, broken (a
// file missing; _metadata that does not parse), unverified (references on
// another file system; a given root the references contradict — a copy;
// references on the snapshot's own file system outside the root), and
// incomplete. Unverified is offered with AllowUnverified, never under
// Strict (which still says unverified, not broken).
func TestOneClassificationOnBuiltTrees(t *testing.T) {
	cases := []struct {
		name  string
		root  string // Options.FlinkRoot ("" infers it)
		build func(e *env) string
		want  flinkckpt.State
	}{
		{"complete", "", func(e *env) string {
			return e.chk(jobA, 1, t0, &flinkckpttest.Checkpoint{Shared: shared("s", 2)}).Dir
		}, flinkckpt.StateComplete},
		{"missing-file", "", func(e *env) string {
			w := e.chk(jobA, 1, t0, &flinkckpttest.Checkpoint{Shared: shared("s", 2)})
			if err := e.mem.Delete(e.ctx, "ck/"+jobA+"/shared/s-0001.sst"); err != nil {
				e.t.Fatal(err)
			}
			return w.Dir
		}, flinkckpt.StateBroken},
		{"unparseable", "s3a://bucket/ck", func(e *env) string {
			dir := "ck/" + jobA + "/chk-1/"
			if err := e.mem.WriteAll(e.ctx, dir+"_metadata", []byte("not a _metadata"), nil); err != nil {
				e.t.Fatal(err)
			}
			return dir
		}, flinkckpt.StateBroken},
		{"other-file-system", "", func(e *env) string {
			return e.chk(jobA, 1, t0, &flinkckpttest.Checkpoint{Shared: shared("s", 2), Absolute: []string{"hdfs://ns/dstl/" + jobA + "/dstl-1"}}).Dir
		}, flinkckpt.StateUnverified},
		{"own-file-system-outside", "", func(e *env) string {
			return e.chk(jobA, 1, t0, &flinkckpttest.Checkpoint{Shared: shared("s", 2), Absolute: []string{"s3a://other-bucket/ck/" + jobA + "/shared/x.sst"}}).Dir
		}, flinkckpt.StateUnverified},
		{"copied-contradicting-root", "s3a://bucket/copy", func(e *env) string {
			// Written under s3a://bucket/ck, read as if it lived at copy/.
			return e.chk(jobA, 1, t0, &flinkckpttest.Checkpoint{Shared: shared("s", 2)}).Dir
		}, flinkckpt.StateUnverified},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, "ck/", "s3a://bucket/", nil)
			dir := c.build(e)
			for _, strict := range []bool{false, true} {
				opts := &flinkckpt.Options{FlinkRoot: c.root, Strict: strict}
				snaps, _ := flinkckpt.List(e.ctx, e.bucket, "ck/", opts)
				if len(snaps) != 1 || snaps[0].State != c.want {
					t.Fatalf("strict %v: List: %+v, want one %s", strict, snaps, c.want)
				}
				s, err := flinkckpt.Inspect(e.ctx, e.bucket, dir, opts)
				if s == nil || s.State != c.want || (err != nil) != (c.want == flinkckpt.StateBroken) {
					t.Fatalf("strict %v: Inspect: %+v, %v; want %s", strict, s, err, c.want)
				}
			}
			_, err := e.resolve(&flinkckpt.Options{FlinkRoot: c.root})
			switch c.want {
			case flinkckpt.StateComplete:
				if err != nil {
					t.Errorf("Resolve: %v", err)
				}
			case flinkckpt.StateBroken:
				if !errors.Is(err, flinkckpt.ErrBroken) {
					t.Errorf("Resolve: %v, want ErrBroken", err)
				}
			case flinkckpt.StateUnverified:
				if !errors.Is(err, flinkckpt.ErrUnverified) || errors.Is(err, flinkckpt.ErrBroken) {
					t.Errorf("Resolve: %v, want ErrUnverified", err)
				}
				if _, err := e.resolve(&flinkckpt.Options{FlinkRoot: c.root, Strict: true}); !errors.Is(err, flinkckpt.ErrUnverified) {
					t.Errorf("Resolve, strict: %v, want ErrUnverified", err)
				}
				c, p := e.mustResolve(&flinkckpt.Options{FlinkRoot: c.root, AllowUnverified: true})
				if p.Verified || !c.HasWarning(flinkckpt.WarnUnverifiedReferences) {
					t.Errorf("Resolve, AllowUnverified: %+v, warnings %q", p, c.Warnings)
				}
			}
		})
	}
}

// TestOneClassifyDefinition: the states broken and unverified are
// decided in state.go only (classify, unparsed); elsewhere in the package
// they are only compared against, never assigned — the second definition
// issue 30 found in list.go and resolver.go stays gone.
func TestOneClassifyDefinition(t *testing.T) {
	files, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	use := regexp.MustCompile(`(==|!=)?\s*\b(StateBroken|StateUnverified|ConsideredBroken|ConsideredUnverified|passBroken|passUnverified)\b`)
	allowed := map[string]bool{"state.go": true, "considered.go": true, "snap.go": true}
	for _, f := range files {
		name := f.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || allowed[name] {
			continue
		}
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "//") {
				continue
			}
			for _, m := range use.FindAllStringSubmatch(line, -1) {
				if m[1] == "" && !strings.Contains(line, "case ") {
					t.Errorf("%s:%d: %s decided outside state.go: %s", name, i+1, m[2], strings.TrimSpace(line))
				}
			}
		}
	}
}

// TestResolveReadsAsItsLoop: Resolver.resolve stays the loop it is (issue
// 30: under 160 lines); discovery (find), the error when nothing is left
// (nothingRestorable), the sinks and the warnings live in their own
// functions. A step added to the loop goes into one of them, or a new one.
func TestResolveReadsAsItsLoop(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "resolver.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Name.Name == "resolve" && fd.Recv != nil {
			n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1
			if n >= 160 {
				t.Errorf("Resolver.resolve is %d lines, want under 160", n)
			}
			return
		}
	}
	t.Fatal("no Resolver.resolve in resolver.go")
}
