package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"gocloud.dev/blob"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/resume/localblob"
	"github.com/resumekit/resumekit/resume/resumetest/s3test"
)

const flinkTestJob = "0123456789abcdef0123456789abcdef"

func runFlinkCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Main(args, &out, &errb)
	return out.String(), errb.String(), code
}

// localLayout writes a checkpoint root with a complete, an incomplete and a
// broken checkpoint into a temporary directory and returns the root dir.
func localLayout(t *testing.T) string {
	t.Helper()
	dir, b := tempBucket(t)
	writeLayout(t, b, "ck/", "file://"+filepath.ToSlash(dir)+"/")
	return filepath.Join(dir, "ck")
}

func writeLayout(t *testing.T, b *blob.Bucket, prefix, root string) {
	t.Helper()
	ctx := context.Background()
	l := &flinkckpttest.Layout{Bucket: b, Prefix: prefix, Root: root}
	for _, c := range []struct {
		id int64
		c  *flinkckpttest.Checkpoint
	}{
		{1, &flinkckpttest.Checkpoint{Shared: []string{"a.sst", "b.sst"}}},
		{2, &flinkckpttest.Checkpoint{Shared: []string{"a.sst"}, SkipFiles: true, Exclusive: -1, Absolute: []string{root + prefix + flinkTestJob + "/shared/gone.sst"}}},
		{3, &flinkckpttest.Checkpoint{Incomplete: true}},
	} {
		if _, err := l.Checkpoint(ctx, flinkTestJob, c.id, c.c); err != nil {
			t.Fatal(err)
		}
	}
}

func TestFlinkListLocal(t *testing.T) {
	root := localLayout(t)
	out, errOut, code := runFlinkCLI(t, "flink", "list", root, "--json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got []flinkListEntry
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	states := map[int64]string{}
	for _, e := range got {
		states[e.CheckpointID] = e.State
	}
	want := map[int64]string{1: "complete", 2: "broken", 3: "incomplete"}
	for id, s := range want {
		if states[id] != s {
			t.Errorf("chk-%d: state %q, want %q (all: %v)", id, states[id], s, states)
		}
	}
	if len(got) != 3 || got[2].CheckpointID != 1 || !strings.HasPrefix(got[2].Path, "file://") || got[2].JobID != flinkTestJob {
		t.Errorf("entries %+v", got)
	}
	out, _, code = runFlinkCLI(t, "flink", "list", root)
	if code != ExitOK || !strings.Contains(out, "incomplete") || !strings.Contains(out, "no _metadata") {
		t.Errorf("text list (exit %d):\n%s", code, out)
	}
}

func TestFlinkInspectLocal(t *testing.T) {
	root := localLayout(t)
	out, errOut, code := runFlinkCLI(t, "flink", "inspect", filepath.Join(root, flinkTestJob, "chk-1"), "--json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"version", "checkpoint_id", "savepoint", "format", "operators", "files", "missing_files"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("inspect --json lacks %q: %s", k, out)
		}
	}
	if doc["missing_files"].(float64) != 0 || len(doc["files"].([]any)) != 3 || doc["checkpoint_id"].(float64) != 1 {
		t.Errorf("doc %s", out)
	}
	// Broken: files missing → the document, then exit 1 with one line.
	out, errOut, code = runFlinkCLI(t, "flink", "inspect", filepath.Join(root, flinkTestJob, "chk-2", "_metadata"), "--json")
	if code != ExitFailed || !strings.Contains(out, `"missing_files": 1`) || strings.Count(errOut, "\n") != 1 {
		t.Errorf("broken: exit %d stdout %s stderr %q", code, out, errOut)
	}
	// Incomplete: no _metadata.
	_, errOut, code = runFlinkCLI(t, "flink", "inspect", filepath.Join(root, flinkTestJob, "chk-3"))
	if code != ExitFailed || !strings.Contains(errOut, "no _metadata") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("incomplete: exit %d stderr %q", code, errOut)
	}
}

func TestFlinkInspectGarbageFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "_metadata"), []byte("not a checkpoint at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runFlinkCLI(t, "flink", "inspect", dir, "--json")
	if code != ExitFailed || !strings.Contains(errOut, "malformed _metadata at byte 0") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("exit %d stderr %q", code, errOut)
	}
}

func TestFlinkUsage(t *testing.T) {
	for _, args := range [][]string{
		{"flink"}, {"flink", "nope", "x"}, {"flink", "list"}, {"flink", "list", "a", "b"},
		{"flink", "inspect", "x", "--no-verify"}, {"flink", "list", "mem://", "--job-id", "xyz"},
		{"flink", "list", "mem://", "--flink-root", "no-scheme"},
	} {
		if _, errOut, code := runFlinkCLI(t, args...); code != ExitUsage {
			t.Errorf("%q: exit %d, want 2 (%s)", args, code, errOut)
		}
	}
}

func fixtureFlinkDir(t *testing.T) string {
	dir := os.Getenv("RESUMEKIT_FIXTURES")
	if dir == "" {
		_, file, _, _ := runtime.Caller(0)
		dir = filepath.Join(filepath.Dir(file), "..", "..", "..", "..", "..", "shared", "fixtures")
	}
	dir = filepath.Join(dir, "flink")
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("Flink fixtures not found at %s: %v; under CI=true the shared fixtures are required (CI runs with a copy of shared/ beside the clone)", dir, err)
		}
		t.Skipf("Flink fixtures not found at %s (set RESUMEKIT_FIXTURES): %v", dir, err)
	}
	return dir
}

func TestFlinkInspectFixture(t *testing.T) {
	dir := filepath.Join(fixtureFlinkDir(t), "v4-flink1.19-rocksdb-native-savepoint")
	out, errOut, code := runFlinkCLI(t, "flink", "inspect", dir, "--json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc inspectJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Version != 4 || !doc.Savepoint || doc.Format != "NATIVE" || len(doc.Operators) != 8 || doc.MissingFiles != 0 {
		t.Errorf("doc %+v", doc)
	}
	for _, f := range doc.Files {
		if !f.Exists || !f.Relative {
			t.Errorf("file %+v", f)
		}
	}
}

// TestFlinkOverS3 runs list and inspect against an S3 endpoint over HTTP.
func TestFlinkOverS3(t *testing.T) {
	srv := s3test.NewServer(t)
	b := srv.Bucket(t, "ckpt")
	writeLayout(t, b, "prod/ck/", "s3a://ckpt/")
	url := strings.Replace(srv.BucketURL("ckpt"), "s3://ckpt?", "s3://ckpt/prod/ck?", 1)
	out, errOut, code := runFlinkCLI(t, "flink", "list", url, "--json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got []flinkListEntry
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[2].State != "complete" || got[2].Path != "s3a://ckpt/prod/ck/"+flinkTestJob+"/chk-1" {
		t.Errorf("entries %+v", got)
	}
	insp := strings.Replace(srv.BucketURL("ckpt"), "s3://ckpt?", "s3://ckpt/prod/ck/"+flinkTestJob+"/chk-1/_metadata?", 1)
	out, errOut, code = runFlinkCLI(t, "flink", "inspect", insp, "--json")
	if code != ExitOK || !strings.Contains(out, `"missing_files": 0`) {
		t.Errorf("inspect over S3: exit %d %s %s", code, out, errOut)
	}
}

// TestFlinkInspectLabelsTheCheckpointID: the summary line names the
// checkpoint id as such (it read "snapshot of unknown kind 1", the id
// looking like part of the kind).
func TestFlinkInspectLabelsTheCheckpointID(t *testing.T) {
	dir := t.TempDir()
	b, err := localblob.OpenBucket(dir, &localblob.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	l := &flinkckpttest.Layout{Bucket: b, Prefix: "ck/", Root: "file://" + filepath.ToSlash(dir) + "/"}
	// Version 3 records no properties, and the dir is named neither
	// chk-<n> nor savepoint-…: nothing tells its kind.
	_, err = l.Savepoint(context.Background(), "copied-by-hand", 7, &flinkckpttest.Checkpoint{Version: 3})
	b.Close()
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runFlinkCLI(t, "flink", "inspect", filepath.Join(dir, "ck", "copied-by-hand"))
	if code != ExitOK || !strings.Contains(out, "\n  snapshot of unknown kind, checkpoint id 7, _metadata version 3,") {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
	root := localLayout(t)
	out, errOut, code = runFlinkCLI(t, "flink", "inspect", filepath.Join(root, flinkTestJob, "chk-1"))
	if code != ExitOK || !strings.Contains(out, "\n  checkpoint, checkpoint id 1, _metadata version 4,") {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
}

// TestFlinkListTooLargeShowsItsFlinkPath: a too-large row's DIR is the
// snapshot's Flink URI like the other rows' (file://…), not the local path
// of its key.
func TestFlinkListTooLargeShowsItsFlinkPath(t *testing.T) {
	root := localLayout(t)
	out, errOut, code := runFlinkCLI(t, "flink", "list", root, "--flink-max-metadata-size", "100")
	if code != ExitOK {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
	rows := 0
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || f[0] != "too-large" {
			continue
		}
		rows++
		if want := "file://" + filepath.ToSlash(filepath.Join(root, flinkTestJob, "chk-"+f[2])); f[3] != want {
			t.Errorf("too-large row's DIR %s, want %s:\n%s", f[3], want, line)
		}
	}
	if rows == 0 {
		t.Errorf("no too-large row:\n%s", out)
	}
	out, _, _ = runFlinkCLI(t, "flink", "list", root, "--flink-max-metadata-size", "100", "--json")
	var got []flinkListEntry
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	for _, en := range got {
		if en.State == "too-large" && !strings.HasPrefix(en.Path, "file://") {
			t.Errorf("too-large entry without a path: %+v", en)
		}
	}
}
