package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/resumekit/resumekit/resume"
)

// recordTestdata is flinkckpt's testdata: the frozen conformance export and
// the records real Flink's classes wrote for it.
func recordTestdata(t *testing.T, rel string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "..", "..", "flinkckpt", "testdata", rel))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func f2Args(t *testing.T) []string {
	return []string{"--flink-checkpoints", recordTestdata(t, "conformance/F2/ck"),
		"--flink-root", "file:///work/wt-ha/conformance/harness/target/work/F2/ck"}
}

func haArgs(t *testing.T) []string {
	return []string{"--flink-ha-configmaps", recordTestdata(t, "records/F2/configmaps.json"),
		"--flink-ha-storage", recordTestdata(t, "records/F2/ha"), "--flink-ha-storage-dir", "file:/tmp/flink-ha/resumekit-f2"}
}

// TestResolveRecordHABroken: conformance F2 with Flink's HA ConfigMaps: the
// decision (chk-3, exit 0 as without the record) carries the record
// section naming HA recovery's checkpoint 4 broken; --fail-on-warning
// record.broken gates on it (exit 7).
func TestResolveRecordHABroken(t *testing.T) {
	args := append(append([]string{"resolve", "--json"}, f2Args(t)...), haArgs(t)...)
	out, errOut, code := run(t, args...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var d resume.Decision
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	if d.Record == nil || len(d.Record.Sources) != 1 {
		t.Fatalf("record %+v", d.Record)
	}
	s := d.Record.Sources[0]
	if s.Kind != resume.RecordFlinkHA || s.CheckpointID != 4 || len(s.Warnings) != 1 || s.Warnings[0].Code != "record.broken" {
		t.Errorf("source %+v", s)
	}
	if !d.Chosen.HasWarning("record.broken") {
		t.Error("the chosen candidate does not carry record.broken")
	}
	_, _, code = run(t, append(args, "--fail-on-warning", "record.broken")...)
	if code != ExitWarningRefused {
		t.Errorf("--fail-on-warning record.broken: exit %d, want %d", code, ExitWarningRefused)
	}
	patch, _, code := run(t, append(append([]string{"resolve", "--format", "k8s"}, f2Args(t)...), haArgs(t)...)...)
	if code != ExitOK || !strings.Contains(patch, `"resumekit.io/record": "flink-ha `) || !strings.Contains(patch, "record.broken") {
		t.Errorf("--format k8s: exit %d, patch %s", code, patch)
	}
	text, _, code := run(t, append(append([]string{"resolve"}, f2Args(t)...), haArgs(t)...)...)
	if code != ExitOK || !strings.Contains(text, "RECORD  (what Flink and the operator will restore by themselves, beside storage)") ||
		!strings.Contains(text, "flink-ha ") || !strings.Contains(text, "HA recovery restores checkpoint 4 at file:/work/wt-ha/") {
		t.Errorf("exit %d, report:\n%s", code, text)
	}
}

// TestResolveRecordRESTRunning: the old job still runs (recorded answers of
// a real JobManager): two REST calls, record.job-running, exit unchanged.
func TestResolveRecordRESTRunning(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		name := "rest/checkpoints.json"
		if r.URL.Path == "/jobs/overview" {
			name = "rest/overview-running.json"
		}
		b, err := os.ReadFile(recordTestdata(t, "records/"+name))
		if err != nil {
			t.Error(err)
		}
		w.Write(b)
	}))
	defer srv.Close()
	out, errOut, code := run(t, append(append([]string{"resolve", "--json"}, f2Args(t)...), "--flink-rest", srv.URL)...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("%d REST calls, want 2", n)
	}
	var d resume.Decision
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	if !d.Chosen.HasWarning("record.job-running") {
		t.Errorf("chosen warnings %v", d.Chosen.Warnings)
	}
}

// TestResolveRecordUnreachable: a record that cannot be read is said
// (record.unreadable) and the decision stands on storage: exit unchanged.
func TestResolveRecordUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close() // nothing listens there any more
	out, errOut, code := run(t, append(append([]string{"resolve", "--json"}, f2Args(t)...), "--flink-rest", srv.URL)...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var d resume.Decision
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	if d.Record == nil || d.Record.Sources[0].Err == nil || !d.Chosen.HasWarning("record.unreadable") {
		t.Errorf("record %+v", d.Record)
	}
}

// TestFlinkRecord prints the record alone: text, JSON; exit 1 when a
// record cannot be read; usage errors exit 2.
func TestFlinkRecord(t *testing.T) {
	args := append(append([]string{"flink", "record"}, f2Args(t)...), haArgs(t)...)
	out, errOut, code := run(t, args...)
	if code != ExitOK || !strings.HasPrefix(out, "RECORD") || !strings.Contains(out, "[record.broken]") {
		t.Errorf("exit %d, stderr %s, out:\n%s", code, errOut, out)
	}
	out, _, code = run(t, append(args, "--json")...)
	var rec struct {
		Sources []struct {
			Kind         string `json:"kind"`
			CheckpointID int64  `json:"checkpoint_id"`
		} `json:"sources"`
	}
	if err := json.Unmarshal([]byte(out), &rec); code != ExitOK || err != nil || len(rec.Sources) != 1 || rec.Sources[0].CheckpointID != 4 {
		t.Errorf("exit %d, %v: %s", code, err, out)
	}
	_, _, code = run(t, "flink", "record", "--flink-ha-configmaps", filepath.Join(t.TempDir(), "missing.json"))
	if code != ExitFailed {
		t.Errorf("an unreadable record: exit %d, want %d", code, ExitFailed)
	}
	for _, bad := range [][]string{
		{"flink", "record"},
		{"flink", "record", "--flink-zookeeper", "127.0.0.1:2181"},
		{"resolve", "--flink-rest", "http://127.0.0.1:8081"},
	} {
		if _, _, code := run(t, bad...); code != ExitUsage {
			t.Errorf("%v: exit %d, want %d", bad, code, ExitUsage)
		}
	}
}
