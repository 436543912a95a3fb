package resume_test

import (
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
