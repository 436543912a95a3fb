package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestResolveNewJobParallelism (issue 33 item 11): real Flink 1.20.3's
// checkpoint in conformance F1 was taken at max parallelism 128. A new job
// configured with max parallelism 256 cannot restore it (Flink: "Max
// parallelism mismatch … Cannot map operator … with max parallelism 128 to
// new program with max parallelism 256"), nor one at parallelism 200; with
// --flink-max-parallelism 128 it restores. The rule is flink compat's
// (jobgraph.CheckCompat), applied to the unchanged job.
func TestResolveNewJobParallelism(t *testing.T) {
	ck := filepath.Join("..", "..", "..", "..", "flinkckpt", "testdata", "conformance", "F1", "ck")
	root := "file:///work/wt-ha/conformance/harness/target/work/F1/ck"
	for _, tc := range []struct {
		flags []string
		code  int
		want  string
	}{
		{[]string{"--flink-max-parallelism", "256"}, ExitIncompatible, "max parallelism 128 in the snapshot, 256 configured in the new job: the restore fails (\"Max parallelism mismatch\")"},
		{[]string{"--flink-parallelism", "200"}, ExitIncompatible, "parallelism 200 in the new job is above the snapshot's max parallelism 128"},
		{[]string{"--flink-max-parallelism", "128", "--flink-parallelism", "4"}, ExitOK, "chk-3"},
	} {
		args := append([]string{"resolve", "--flink-checkpoints", ck, "--flink-root", root, "--now", "2030-01-01T00:00:00Z"}, tc.flags...)
		code, out, errs := runPaimonCLI(args...)
		if code != tc.code || !strings.Contains(out+errs, tc.want) {
			t.Errorf("%q: exit %d, want %d and %q\n%s%s", tc.flags, code, tc.code, tc.want, out, errs)
		}
	}
	for _, args := range [][]string{
		{"resolve", "--flink-checkpoints", ck, "--flink-max-parallelism", "-1"},
		{"resolve", "--paimon-table", ck, "--paimon-consumer", "c", "--flink-max-parallelism", "128"},
	} {
		if code, out, errs := runPaimonCLI(args...); code != ExitUsage {
			t.Errorf("%q: exit %d, want usage\n%s%s", args, code, out, errs)
		}
	}
}

// TestSeveralRootsOneSet (issue 33 item 14): --flink-savepoints given twice
// kept the last root silently; several roots are one set of snapshots. Real
// Flink 1.20.3's two savepoints of conformance F6s, one per root: both are
// read, id 6 chosen over id 3 (their lineage), from whichever root.
func TestSeveralRootsOneSet(t *testing.T) {
	src := filepath.Join("..", "..", "..", "..", "flinkckpt", "testdata", "conformance", "F6s", "sp")
	const id6, id3 = "savepoint-3ce641-6f1a07e53b19", "savepoint-3ce641-fe284895a79a"
	var roots []string
	for _, sp := range []string{id3, id6} {
		dir := t.TempDir()
		if err := os.CopyFS(filepath.Join(dir, sp), os.DirFS(filepath.Join(src, sp))); err != nil {
			t.Fatal(err)
		}
		roots = append(roots, dir)
	}
	code, out, errs := runPaimonCLI("resolve", "--flink-savepoints", roots[0], "--flink-savepoints", roots[1], "--now", "2030-01-01T00:00:00Z")
	if code != ExitOK || !strings.Contains(out, "CHOSEN  flink-savepoints: savepoint "+id6+" (checkpoint 6)") || !strings.Contains(out, "ranks above "+id3) || !strings.Contains(out, id3) {
		t.Errorf("exit %d\n%s%s", code, out, errs)
	}
}
