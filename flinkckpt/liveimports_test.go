package flinkckpt_test

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestLiveCheckImports: flinkckpt, salvage and livecheck check sources
// through livecheck's interfaces only: none of them imports kafkaoffset,
// paimon, a client library or a database driver (those live in leaf
// packages: kafkaoffset.Log, *paimon.Table, pgcheck, mysqlcheck).
func TestLiveCheckImports(t *testing.T) {
	forbidden := []string{"resumekit/kafkaoffset", "resumekit/paimon", "franz-go", "go-sql-driver", "jackc/pgx", "livecheck/pgcheck", "livecheck/mysqlcheck"}
	for _, dir := range []string{".", "salvage", "../resume/livecheck"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range af.Imports {
				for _, bad := range forbidden {
					if strings.Contains(imp.Path.Value, bad) {
						t.Errorf("%s imports %s", f, imp.Path.Value)
					}
				}
			}
		}
	}
}
