package resume_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ARCHITECTURE.md at the module root names every package of the module, so
// that the map stays true: a package added without a line there fails here.
func TestArchitectureNamesEveryPackage(t *testing.T) {
	root := ".."
	doc, err := os.ReadFile(filepath.Join(root, "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	var missing []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (name == "testdata" || strings.HasPrefix(name, ".") || name == "conformance") {
			return filepath.SkipDir
		}
		files, _ := filepath.Glob(filepath.Join(path, "*.go"))
		hasCode := false
		for _, f := range files {
			if !strings.HasSuffix(f, "_test.go") {
				hasCode = true
				break
			}
		}
		if !hasCode {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		if !strings.Contains(text, "`"+filepath.ToSlash(rel)+"`") {
			missing = append(missing, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(missing) > 0 {
		t.Errorf("ARCHITECTURE.md does not name these packages (add a row to its package table): %s", strings.Join(missing, ", "))
	}
}

// TestBlobtestOnlyInTests: blobtest (faults, latency, call counts) is a
// test helper. Production code that watches its storage calls uses
// resume/blobwatch; only tests, resume/resumetest and other test-helper
// packages (named …test, as paimontest) import blobtest.
func TestBlobtestOnlyInTests(t *testing.T) {
	const blobtest = `"github.com/resumekit/resumekit/resume/resumetest/blobtest"`
	root := ".."
	var bad []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(path, root+string(filepath.Separator)))
		if d.IsDir() {
			if path != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || rel == "resume/resumetest") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		if strings.HasSuffix(f.Name.Name, "test") {
			return nil // a test helper, like blobtest itself
		}
		for _, imp := range f.Imports {
			if imp.Path.Value == blobtest {
				bad = append(bad, rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(bad) > 0 {
		t.Errorf("production code imports the test helper blobtest (use resume/blobwatch to observe calls): %s", strings.Join(bad, ", "))
	}
}
