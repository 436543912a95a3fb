package resume

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestWarningCodeTable keeps the code table of the package doc and the Warn…
// constants of every resolver package in step: every constant is in the
// table, every code of the table is a constant, and no code is defined twice.
func TestWarningCodeTable(t *testing.T) {
	doc, err := os.ReadFile("warning.go") // the table is on WarningCode
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`(?m)^//\t([a-z]+\.[a-z0-9-]+) `)
	var table []string
	for _, m := range row.FindAllSubmatch(doc, -1) {
		table = append(table, string(m[1]))
	}
	var defined []string
	seen := map[string]string{}
	fset := token.NewFileSet()
	for _, dir := range []string{".", "../flinkckpt", "../flinkckpt/salvage", "../flinkckpt/record", "../kafkaoffset", "../paimon"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(fset, f, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range file.Decls {
				gd, ok := d.(*ast.GenDecl)
				if !ok || gd.Tok != token.CONST {
					continue
				}
				for _, spec := range gd.Specs {
					vs := spec.(*ast.ValueSpec)
					for i, name := range vs.Names {
						if !strings.HasPrefix(name.Name, "Warn") || i >= len(vs.Values) {
							continue
						}
						lit, ok := vs.Values[i].(*ast.BasicLit)
						if !ok || lit.Kind != token.STRING {
							continue
						}
						code, _ := strconv.Unquote(lit.Value)
						if prev, dup := seen[code]; dup && prev != f+"."+name.Name {
							t.Errorf("code %s defined twice: %s and %s.%s", code, prev, f, name.Name)
						}
						seen[code] = f + "." + name.Name
						defined = append(defined, code)
					}
				}
			}
		}
	}
	sort.Strings(table)
	sort.Strings(defined)
	defined = compactStrings(defined)
	if diff := cmp.Diff(table, defined); diff != "" {
		t.Errorf("warning codes: doc table (-) vs Warn constants (+):\n%s", diff)
	}
}

func compactStrings(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// TestWarningCodesAtRunTime: the codes a program can check user input
// against are the table's, the ones the packages define among them, and a
// typo is not one.
func TestWarningCodesAtRunTime(t *testing.T) {
	codes := WarningCodes()
	if len(codes) < 100 || !KnownWarningCode("flink.older-than-broken") || !KnownWarningCode(WarnOtherSource) ||
		KnownWarningCode("flink.older-then-broken") || KnownWarningCode("") {
		t.Errorf("%d codes: %v", len(codes), codes)
	}
}
