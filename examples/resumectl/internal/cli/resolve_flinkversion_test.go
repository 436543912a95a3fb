package cli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
)

// TestResolveFlinkVersionRollback (#29 item 3, through the CLI): a job dir
// whose newest checkpoint Flink 2.1 wrote (_metadata version 6) after a
// 1.20 one (version 4): with --flink-version 1.20 resolve chooses the
// version 4 checkpoint and says Flink's refusal of the newer one; with 2.1
// the newest; with only version 6 checkpoints and 1.20 it exits 5, not 3
// (a first deploy would start the job empty).
func TestResolveFlinkVersionRollback(t *testing.T) {
	d, b := tempBucket(t)
	dir := filepath.ToSlash(d)
	l := &flinkckpttest.Layout{Bucket: b, Prefix: "ck/", Root: "file://" + dir + "/", PathString: true}
	ctx := context.Background()
	if _, err := l.Checkpoint(ctx, flinkTestJob, 5, &flinkckpttest.Checkpoint{Shared: []string{"a.sst"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Checkpoint(ctx, flinkTestJob, 6, &flinkckpttest.Checkpoint{Version: 6, Shared: []string{"b.sst"}}); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "ck")
	out, errOut, code := runFlinkCLI(t, "resolve", "--flink-checkpoints", root, "--flink-version", "1.20")
	if code != ExitOK || !strings.Contains(out, "chk-5 of job") || !strings.Contains(out, `Unrecognized checkpoint version number: 6`) || !strings.Contains(out, "flink.older-than-unreadable") {
		t.Errorf("1.20: exit %d %s\n%s", code, errOut, out)
	}
	out, errOut, code = runFlinkCLI(t, "resolve", "--flink-checkpoints", root, "--flink-version", "2.1")
	if code != ExitOK || !strings.Contains(out, "chk-6 of job") {
		t.Errorf("2.1: exit %d %s\n%s", code, errOut, out)
	}

	d2, b2 := tempBucket(t)
	l2 := &flinkckpttest.Layout{Bucket: b2, Prefix: "ck/", Root: "file://" + filepath.ToSlash(d2) + "/", PathString: true}
	if _, err := l2.Checkpoint(ctx, flinkTestJob, 6, &flinkckpttest.Checkpoint{Version: 6, Shared: []string{"b.sst"}}); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = runFlinkCLI(t, "resolve", "--flink-checkpoints", filepath.Join(d2, "ck"), "--flink-version", "1.20")
	if code != ExitIncompatible || !strings.Contains(out+errOut, "Unrecognized checkpoint version number: 6") {
		t.Errorf("nothing readable: exit %d, want %d\n%s\n%s", code, ExitIncompatible, out, errOut)
	}
}
