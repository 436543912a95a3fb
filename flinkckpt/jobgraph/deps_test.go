package jobgraph_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// goListDeps returns what go list -deps says the package in dir depends on.
func goListDeps(t *testing.T, dir string) []string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no go tool on PATH: %v", err)
		}
		t.Skipf("no go tool on PATH: %v", err)
	}
	cmd := exec.Command(goTool, "list", "-deps", dir)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", dir, err)
	}
	return strings.Fields(string(out))
}

// TestNoStorageDependencies (issue 24): the new job's description is
// bytes in, a description out — it imports the _metadata model and the
// standard library, never gocloud or another storage or network module.
func TestNoStorageDependencies(t *testing.T) {
	deps := goListDeps(t, ".")
	if len(deps) == 0 {
		t.Fatal("go list -deps listed nothing")
	}
	for _, d := range deps {
		first := strings.SplitN(d, "/", 2)[0]
		if !strings.Contains(first, ".") {
			continue // the standard library
		}
		if !strings.HasPrefix(d, "github.com/resumekit/resumekit/") {
			t.Errorf("jobgraph depends on %s: it takes only the standard library and the project's pure packages", d)
		}
		for _, banned := range []string{"gocloud.dev", "resumekit/flinkckpt/salvage", "resumekit/resume/localblob"} {
			if strings.Contains(d, banned) {
				t.Errorf("jobgraph depends on %s", d)
			}
		}
		if d == "github.com/resumekit/resumekit/flinkckpt" || d == "github.com/resumekit/resumekit/resume" {
			t.Errorf("jobgraph depends on %s: the job description is below the resolvers", d)
		}
	}
}

// TestWriterDoesNotNeedTheResolver (issue 24): flinkckpttest writes trees
// with operator ids from uids, which is the job description's, not the
// resolver's.
func TestWriterDoesNotNeedTheResolver(t *testing.T) {
	for _, d := range goListDeps(t, "../flinkckpttest") {
		if d == "github.com/resumekit/resumekit/flinkckpt" {
			t.Error("flinkckpttest depends on flinkckpt, the resolver")
		}
	}
}
