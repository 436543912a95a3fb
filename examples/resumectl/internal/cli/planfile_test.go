package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// compatDir is flinkckpt's generated savepoint and compiled plans.
var compatDir = filepath.Join("..", "..", "..", "..", "flinkckpt", "jobgraph", "testdata", "compat")

// TestPlanFileIsTheFileNamed: --plan FILE and --flink-plan FILE name one
// file, not a directory to confine keys to: a link the user named is
// followed, but only a regular file is read — a FIFO (or a link to one) or
// a device is refused at once (exit 2), never waited on, even before
// --timeout would end the wait.
func TestPlanFileIsTheFileNamed(t *testing.T) {
	sp := filepath.Join(compatDir, "savepoint-5b9e0a-3c1d2e4f6a7b")
	plan, err := filepath.Abs(filepath.Join(compatDir, "plan.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	link := filepath.Join(dir, "plan-link.json")
	if err := os.Symlink(plan, link); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runPaimonCLI("flink", "compat", sp, "--plan", link)
	if code != ExitOK || !strings.Contains(out, "compatible: every operator with state is restored") {
		t.Errorf("a linked plan: exit %d\n%s%s", code, out, errs)
	}
	fifo := filepath.Join(dir, "plan-fifo.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	fifoLink := filepath.Join(dir, "fifo-link.json")
	if err := os.Symlink(fifo, fifoLink); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"flink", "compat", sp, "--plan", fifo},
		{"flink", "compat", sp, "--plan", fifoLink},
		{"flink", "compat", sp, "--plan", "/dev/zero"},
		{"resolve", "--flink-savepoints", compatDir, "--flink-plan", fifo},
		{"resolve", "--flink-savepoints", compatDir, "--flink-plan", "/dev/zero", "--json"},
	} {
		code, out, errs := runPaimonCLI(append(args, "--timeout", "1m")...)
		if code != ExitUsage || !strings.Contains(errs, "not a regular file") || out != "" {
			t.Errorf("%q: exit %d, want 2 naming a file that is not regular\n%s%s", args, code, out, errs)
		}
	}
}

// TestPlanFromStdinIsReadOnce: resolve with --flink-plan - gives the new job
// to the checkpoint resolvers and to the salvage resolver it brings: the
// plan is read once (a second read of stdin found nothing, and resolve
// failed "malformed compiled plan: EOF").
func TestPlanFromStdinIsReadOnce(t *testing.T) {
	plan, err := os.ReadFile(filepath.Join(compatDir, "plan.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code := runHooked([]string{"resolve", "--flink-savepoints", compatDir, "--flink-plan", "-"}, &out, &errOut, &hooks{wait: noWait, stdin: bytes.NewReader(plan)})
	if code != ExitOK || !strings.Contains(out.String(), "CHOSEN  flink-savepoints: savepoint savepoint-5b9e0a-3c1d2e4f6a7b (checkpoint 12)") ||
		!strings.Contains(out.String(), "restores into the new job: 3 of 3 operators matched by id") {
		t.Errorf("exit %d\n%s%s", code, out.String(), errOut.String())
	}
}
