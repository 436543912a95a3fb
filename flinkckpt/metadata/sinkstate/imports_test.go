package sinkstate_test

import (
	"os/exec"
	"strings"
	"testing"
)

// sinkstate reads the operator list-state stream through opstate, never
// through sourcestate: neither of the two state readers imports the other
// (issue 30), directly or through anything else.
func TestNoSourcestateDependency(t *testing.T) {
	for _, pkg := range []string{".", "../sourcestate"} {
		out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		deps := strings.Fields(string(out))
		other := "github.com/resumekit/resumekit/flinkckpt/metadata/sourcestate"
		if pkg != "." {
			other = "github.com/resumekit/resumekit/flinkckpt/metadata/sinkstate"
		}
		opstate := false
		for _, d := range deps {
			if d == other {
				t.Errorf("go list -deps %s contains %s", pkg, other)
			}
			opstate = opstate || d == "github.com/resumekit/resumekit/flinkckpt/metadata/opstate"
		}
		if !opstate {
			t.Errorf("go list -deps %s: no opstate (the list-state stream)", pkg)
		}
	}
}
