package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/jobgraph"
	"github.com/resumekit/resumekit/resume"
)

// flinkFormTree writes a checkpoint root whose references are spelled as
// Flink writes them (file:/dir, no "//"), one checkpoint referencing a file
// outside the tree (an unmapped other file system) when outside is set,
// and returns the checkpoint root dir and the dir of a second tree.
func flinkFormTree(t *testing.T, c *flinkckpttest.Checkpoint) (root, dir string) {
	t.Helper()
	d, b := tempBucket(t)
	dir = filepath.ToSlash(d)
	l := &flinkckpttest.Layout{Bucket: b, Prefix: "ck/", Root: "file://" + dir + "/", PathString: true}
	if _, err := l.Checkpoint(context.Background(), flinkTestJob, 5, c); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "ck"), dir
}

func decode(t *testing.T, out string) *resume.Decision {
	t.Helper()
	var d resume.Decision
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return &d
}

// TestResolveFlinkFormLocalRoot: a local tree with Flink-form references
// (file:/dir) resolves verified, with the root resumectl derives and with
// --flink-root in Flink's spelling.
func TestResolveFlinkFormLocalRoot(t *testing.T) {
	root, dir := flinkFormTree(t, &flinkckpttest.Checkpoint{Shared: []string{"a.sst", "b.sst"}})
	for _, extra := range [][]string{nil, {"--flink-root", "file:" + dir + "/ck"}, {"--flink-root", "file://" + dir + "/ck"}} {
		args := append([]string{"resolve", "--flink-checkpoints", root, "--json"}, extra...)
		out, errOut, code := runFlinkCLI(t, args...)
		if code != ExitOK {
			t.Fatalf("%q: exit %d: %s", extra, code, errOut)
		}
		if !strings.Contains(out, `"verified": true`) || !strings.Contains(out, `"checked_files": 3`) {
			t.Errorf("%q: %s", extra, out)
		}
	}
}

// TestFlinkListUnverifiedAndExtraRoot: flink list says "unverified" for a
// checkpoint with a reference nobody can check; resolve refuses it unless
// --flink-allow-unverified, and --flink-extra-root maps the other place so
// it is checked.
func TestFlinkListUnverifiedAndExtraRoot(t *testing.T) {
	other := filepath.ToSlash(t.TempDir())
	if err := os.MkdirAll(filepath.Join(other, "dstl"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "dstl", "log-1"), make([]byte, 16), 0o644); err != nil {
		t.Fatal(err)
	}
	root, _ := flinkFormTree(t, &flinkckpttest.Checkpoint{Shared: []string{"a.sst"}, Absolute: []string{"hdfs://ns/dstl/log-1"}})
	out, _, code := runFlinkCLI(t, "flink", "list", root)
	if code != ExitOK || !strings.Contains(out, "unverified") || !strings.Contains(out, "1 of 3 referenced files not checked") {
		t.Errorf("list (exit %d):\n%s", code, out)
	}
	out, _, code = runFlinkCLI(t, "resolve", "--flink-checkpoints", root, "--json")
	if code != ExitFailed || !strings.Contains(out, "unverified: 1 of 3 referenced files not checked") {
		t.Errorf("resolve (exit %d): %s", code, out)
	}
	out, _, code = runFlinkCLI(t, "resolve", "--flink-checkpoints", root, "--flink-allow-unverified", "--json")
	if d := decode(t, out); code != ExitOK || !d.Chosen.HasWarning("flink.unverified-references") || !strings.Contains(out, `"verified": false`) {
		t.Errorf("allowed (exit %d): %s", code, out)
	}
	extra := "hdfs://ns/=" + other
	out, _, code = runFlinkCLI(t, "resolve", "--flink-checkpoints", root, "--flink-extra-root", extra, "--json")
	if code != ExitOK || !strings.Contains(out, `"verified": true`) {
		t.Errorf("extra root (exit %d): %s", code, out)
	}
	out, _, code = runFlinkCLI(t, "flink", "list", root, "--flink-extra-root", extra)
	if code != ExitOK || !strings.Contains(out, "complete") {
		t.Errorf("list with extra root (exit %d):\n%s", code, out)
	}
	if _, errOut, code := runFlinkCLI(t, "resolve", "--flink-checkpoints", root, "--flink-extra-root", "hdfs://ns/"); code != ExitUsage || !strings.Contains(errOut, "FLINKURI=BUCKETURL") {
		t.Errorf("bad extra root: exit %d %s", code, errOut)
	}
}

// TestResolveFlinkRequire: an empty location is "no position" (exit 3),
// and a failure with --flink-require (exit 1), saying both causes.
func TestResolveFlinkRequire(t *testing.T) {
	empty := t.TempDir()
	out, _, code := runFlinkCLI(t, "resolve", "--flink-checkpoints", empty)
	if code != ExitNothing || !strings.Contains(out, "a first deploy, or a mistyped prefix") {
		t.Errorf("without --flink-require: exit %d\n%s", code, out)
	}
	out, errOut, code := runFlinkCLI(t, "resolve", "--flink-checkpoints", empty, "--flink-require")
	if code != ExitFailed || !strings.Contains(errOut+out, "--flink-require") {
		t.Errorf("with --flink-require: exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestResolveFlinkLaunchFlags: --flink-version picks the claim-mode flag
// of the run line, --flink-claim-mode the mode; the limit, intent and
// observation flags reach the resolver.
func TestResolveFlinkLaunchFlags(t *testing.T) {
	root, _ := flinkFormTree(t, &flinkckpttest.Checkpoint{Shared: []string{"a.sst"}})
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--flink-version", "1.20"}, `-claimMode NO_CLAIM`},
		{[]string{"--flink-version", "1.18"}, `-restoreMode NO_CLAIM`},
		{[]string{"--flink-version", "1.20", "--flink-claim-mode", "claim"}, `-claimMode CLAIM`},
	} {
		out, errOut, code := runFlinkCLI(t, append([]string{"resolve", "--flink-checkpoints", root}, tc.args...)...)
		if code != ExitOK || !strings.Contains(out, tc.want) {
			t.Errorf("%q: exit %d %s\n%s", tc.args, code, errOut, out)
		}
	}
	out, errOut, code := runFlinkCLI(t, "resolve", "--flink-checkpoints", root, "--flink-max-metadata-size", "100")
	if code != ExitFailed || !strings.Contains(out+errOut, "too large to inspect") {
		t.Errorf("size limit: exit %d\n%s\n%s", code, out, errOut)
	}
	out, _, code = runFlinkCLI(t, "resolve", "--flink-checkpoints", root, "--flink-intent", "upgrade", "--flink-observe", "1ms")
	if code != ExitOK || !strings.Contains(out, "observed") {
		t.Errorf("intent and observe: exit %d\n%s", code, out)
	}
	for _, bad := range [][]string{
		{"--flink-intent", "rescale"}, {"--flink-claim-mode", "own"}, {"--flink-version", "new"},
		{"--flink-max-metadata-size", "-3"}, {"--flink-observe", "soon"}, {"--flink-default-fs", "ns"},
	} {
		if _, errOut, code := runFlinkCLI(t, append([]string{"resolve", "--flink-checkpoints", root}, bad...)...); code != ExitUsage {
			t.Errorf("%q: exit %d, want 2 (%s)", bad, code, errOut)
		}
	}
	if _, errOut, code := runFlinkCLI(t, "resolve", "--kafka-brokers", "127.0.0.1:1", "--kafka-topic", "t", "--kafka-group", "g", "--flink-require"); code != ExitUsage {
		t.Errorf("--flink-require without a Flink location: exit %d %s", code, errOut)
	}
}

// TestResolveFlinkAnchor: --flink-anchor names a snapshot of the job; its
// operators pick the application among several sharing a location.
func TestResolveFlinkAnchor(t *testing.T) {
	dir, b := tempBucket(t)
	dir = filepath.ToSlash(dir)
	ctx := context.Background()
	l := &flinkckpttest.Layout{Bucket: b, Prefix: "ck/", Root: "file://" + dir + "/", PathString: true}
	ops := func(app string) []string {
		return []string{flinkckpttest.OperatorID(len(app) * 100), flinkckpttest.OperatorID(len(app)*100 + 1)}
	}
	const other = "fedcba9876543210fedcba9876543210"
	if _, err := l.Checkpoint(ctx, flinkTestJob, 5, &flinkckpttest.Checkpoint{OperatorIDs: ops("orders"), Shared: []string{"a"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Checkpoint(ctx, other, 9, &flinkckpttest.Checkpoint{OperatorIDs: ops("payments"), Shared: []string{"b"}}); err != nil {
		t.Fatal(err)
	}
	sp := &flinkckpttest.Layout{Bucket: b, Prefix: "sp/", Root: "file://" + dir + "/"}
	w, err := sp.Savepoint(ctx, flinkckpttest.SavepointName(flinkTestJob, 1), 4, &flinkckpttest.Checkpoint{OperatorIDs: ops("orders")})
	if err != nil {
		t.Fatal(err)
	}
	out, _, code := runFlinkCLI(t, "resolve", "--flink-checkpoints", dir+"/ck")
	if code != ExitFailed || !strings.Contains(out, "holds snapshots of 2 applications") {
		t.Errorf("not identified: exit %d\n%s", code, out)
	}
	out, errOut, code := runFlinkCLI(t, "resolve", "--flink-checkpoints", dir+"/ck", "--flink-anchor", dir+"/"+w.Dir)
	if code != ExitOK || !strings.Contains(out, "chk-5 of job "+flinkTestJob) {
		t.Errorf("anchored: exit %d %s\n%s", code, errOut, out)
	}
	// --flink-sources chooses its snapshot among the same application's:
	// the anchor identifies it there too (these checkpoints hold no source
	// state, so salvage offers nothing, without failing).
	out, errOut, code = runFlinkCLI(t, "resolve", "--flink-checkpoints", dir+"/ck", "--flink-anchor", dir+"/"+w.Dir, "--flink-sources")
	if code != ExitOK || !strings.Contains(out, "chk-5 of job "+flinkTestJob) || strings.Contains(out, "2 applications") ||
		!strings.Contains(out, "holds no source state") {
		t.Errorf("anchored salvage: exit %d %s\n%s", code, errOut, out)
	}
}

// TestFlinkFlagsInUsage: every Flink flag of resolve, flink list and flink
// inspect appears in its usage lines.
func TestFlinkFlagsInUsage(t *testing.T) {
	for _, args := range [][]string{{"resolve", "-h"}, {"flink", "list", "-h"}, {"flink", "inspect", "-h"}, {"flink", "sources", "-h"}, {"flink", "compat", "-h"}} {
		out, _, code := runFlinkCLI(t, args...)
		if code != ExitOK {
			t.Fatalf("%q: exit %d", args, code)
		}
		usage, defaults, _ := strings.Cut(out, "\n  -")
		for _, line := range strings.Split("  -"+defaults, "\n") {
			if !strings.HasPrefix(line, "  -") {
				continue
			}
			name := strings.Fields(strings.TrimPrefix(line, "  -"))[0]
			if strings.HasPrefix(name, "flink-") && !strings.Contains(usage, "--"+name) {
				t.Errorf("%q: usage lacks --%s:\n%s", args, name, usage)
			}
		}
	}
}

// TestResolveFlinkRequireEitherLocation: with a checkpoint root and an
// empty savepoint dir, --flink-require is satisfied by the checkpoint; with
// both empty it fails.
func TestResolveFlinkRequireEitherLocation(t *testing.T) {
	root, _ := flinkFormTree(t, &flinkckpttest.Checkpoint{Shared: []string{"a.sst"}})
	empty := t.TempDir()
	out, errOut, code := runFlinkCLI(t, "resolve", "--flink-checkpoints", root, "--flink-savepoints", empty, "--flink-require")
	if code != ExitOK || !strings.Contains(out, "CHOSEN  flink-checkpoints") {
		t.Errorf("checkpoint present: exit %d %s\n%s", code, errOut, out)
	}
	out, errOut, code = runFlinkCLI(t, "resolve", "--flink-checkpoints", t.TempDir(), "--flink-savepoints", empty, "--flink-require")
	if code != ExitFailed || strings.Count(out, "--flink-require") != 1 || !strings.Contains(out, "nothing at all is stored there") {
		t.Errorf("both empty: exit %d %s\n%s", code, errOut, out)
	}
}

// TestResolveTwoLocationsOneApplicationCheck: --flink-checkpoints and
// --flink-savepoints are read by one resolver, so a newer savepoint of
// another application in the savepoint dir fails the application check
// instead of winning on time, and the job's own operators settle it.
func TestResolveTwoLocationsOneApplicationCheck(t *testing.T) {
	dir, b := tempBucket(t)
	dir = filepath.ToSlash(dir)
	ctx := context.Background()
	root := "file://" + dir + "/"
	ck := &flinkckpttest.Layout{Bucket: b, Prefix: "ck/", Root: root, PathString: true}
	if _, err := ck.Checkpoint(ctx, flinkTestJob, 5, &flinkckpttest.Checkpoint{OperatorIDs: []string{jobgraph.OperatorID("orders-a"), jobgraph.OperatorID("orders-b")}, Shared: []string{"a.sst"}}); err != nil {
		t.Fatal(err)
	}
	sp := &flinkckpttest.Layout{Bucket: b, Prefix: "sp/", Root: root, PathString: true}
	w, err := sp.Savepoint(ctx, flinkckpttest.SavepointName("fedcba9876543210fedcba9876543210", 1), 9, &flinkckpttest.Checkpoint{OperatorIDs: []string{jobgraph.OperatorID("payments-a")}})
	if err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(dir, w.Dir, "_metadata"), later, later); err != nil {
		t.Fatal(err)
	}
	args := []string{"resolve", "--flink-checkpoints", filepath.Join(dir, "ck"), "--flink-savepoints", filepath.Join(dir, "sp")}
	out, errOut, code := runFlinkCLI(t, args...)
	if code != ExitFailed || !strings.Contains(out+errOut, "hold snapshots of 2 applications and the job is not identified") {
		t.Errorf("not identified: exit %d\n%s\n%s", code, out, errOut)
	}
	out, errOut, code = runFlinkCLI(t, append(args, "--flink-uid", "orders-a", "--flink-uid", "orders-b")...)
	if code != ExitOK || !strings.Contains(out, "CHOSEN  flink-checkpoints: chk-5 of job "+flinkTestJob) || !strings.Contains(out, "another application") {
		t.Errorf("by the new job's uids: exit %d\n%s\n%s", code, out, errOut)
	}
}
