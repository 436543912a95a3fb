package metadata

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// The pure format packages import only the standard library and each
// other (DESIGN.md, "Layout"): no storage, no third-party module, with one
// exception: Snappy framing is decoded by klauspost/compress (issue 24: a
// kept library over a hand-written decoder), which does no I/O of its own.
func TestPureImports(t *testing.T) {
	allowed := map[string]bool{
		"github.com/resumekit/resumekit/flinkckpt/metadata":         true,
		"github.com/resumekit/resumekit/flinkckpt/metadata/opstate": true, // sourcestate and sinkstate read list state through it
		"github.com/resumekit/resumekit/flinkckpt/internal/javaio":  true,
		"github.com/klauspost/compress/snappy":                      true,
	}
	for _, dir := range []string{".", "opstate", "sourcestate", "sinkstate", filepath.Join("..", "internal", "javaio")} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range af.Imports {
				path := strings.Trim(imp.Path.Value, `"`)
				if !allowed[path] && strings.Contains(strings.SplitN(path, "/", 2)[0], ".") {
					t.Errorf("%s imports %s: the pure format packages take only the standard library", f, path)
				}
			}
		}
	}
}
