package record_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/record"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
)

// exportRoots are the Flink roots the frozen conformance export's trees were
// written under.
var exportRoots = map[string]string{
	"F1":  "file:///work/wt-ha/conformance/harness/target/work/F1/",
	"F2":  "file:///work/wt-ha/conformance/harness/target/work/F2/",
	"F6s": "file:///work/wt-conf/conformance/harness/target/work/F6s/",
}

func exportBucket(t *testing.T, scenario string) *blob.Bucket {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "testdata", "conformance", scenario))
	if err != nil {
		t.Fatal(err)
	}
	b, err := fileblob.OpenBucket(dir, &fileblob.Options{Metadata: fileblob.MetadataDontWrite})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// resolveExport resolves a scenario's checkpoint root (ck/) as resumectl
// would, and returns the decision and the storage view Compare looks in.
func resolveExport(t *testing.T, scenario string) (*resume.Decision, *record.BucketStorage) {
	t.Helper()
	b := exportBucket(t, scenario)
	opts := &flinkckpt.Options{FlinkRoot: exportRoots[scenario] + "ck"}
	r, err := flinkckpt.NewResolver(b, "ck/", opts)
	if err != nil {
		t.Fatal(err)
	}
	d, err := (&resume.Chain{Resolvers: []resume.Resolver{r}}).Resolve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return d, &record.BucketStorage{Checkpoints: b, CheckpointsPrefix: "ck/", Savepoints: b, SavepointsPrefix: "sp/", Options: opts}
}

func haInput(t *testing.T, scenario string) record.Input {
	t.Helper()
	h, err := record.ParseConfigMaps(scenario+"/configmaps.json", readTestdata(t, scenario+"/configmaps.json"))
	if err != nil {
		t.Fatal(err)
	}
	store, _ := haBucket(t, scenario)
	if err := record.ReadPointers(context.Background(), store, h); err != nil {
		t.Fatal(err)
	}
	return record.Input{Kind: resume.RecordFlinkHA, Source: scenario + "/configmaps.json", HA: h}
}

func codes(ws []resume.Warning) []string {
	var out []string
	for _, w := range ws {
		if strings.HasPrefix(string(w.Code), "record.") {
			out = append(out, string(w.Code))
		}
	}
	return out
}

func only(t *testing.T, d *resume.Decision) resume.RecordSource {
	t.Helper()
	if d.Record == nil || len(d.Record.Sources) != 1 {
		t.Fatalf("record %+v, want one source", d.Record)
	}
	return d.Record.Sources[0]
}

func wantCodes(t *testing.T, d *resume.Decision, want ...string) {
	t.Helper()
	s := only(t, d)
	if got := codes(s.Warnings); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("record warnings %v, want %v: %+v", got, want, s.Warnings)
	}
	if got := codes(d.Chosen.Warnings); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("chosen carries %v, want %v", got, want)
	}
}

// TestHABrokenRecord is conformance F2: Flink's HA store holds checkpoints
// 2, 3, 4; 4 references a deleted shared file. Real Flink's HA recovery
// restored 4 and failed; resumekit chooses 3 and the record names 4 as
// broken, with what to do instead.
func TestHABrokenRecord(t *testing.T) {
	d, st := resolveExport(t, "F2")
	if err := record.Compare(context.Background(), d, []record.Input{haInput(t, "F2")}, &record.CompareOptions{Storage: st}); err != nil {
		t.Fatal(err)
	}
	wantCodes(t, d, record.WarnBroken)
	s := only(t, d)
	if s.CheckpointID != 4 || !strings.HasSuffix(s.Path, f2Job+"/chk-4") || !strings.HasPrefix(s.Storage, "broken") {
		t.Errorf("source %+v", s)
	}
	if w := s.Warnings[0].Text; !strings.Contains(w, "chk-3") || !strings.Contains(w, "instead") {
		t.Errorf("the warning names no alternative: %s", w)
	}
	if rep := d.Explain(); !strings.Contains(rep, "RECORD") || !strings.Contains(rep, "record.broken") {
		t.Errorf("report:\n%s", rep)
	}
}

// TestHAAgrees is conformance F1: the HA store's latest is the chosen
// checkpoint 3 (real Flink restored 3).
func TestHAAgrees(t *testing.T) {
	d, st := resolveExport(t, "F1")
	if err := record.Compare(context.Background(), d, []record.Input{haInput(t, "F1")}, &record.CompareOptions{Storage: st}); err != nil {
		t.Fatal(err)
	}
	wantCodes(t, d)
	if s := only(t, d); s.CheckpointID != 3 || !strings.Contains(s.Storage, "the chosen snapshot") {
		t.Errorf("source %+v", s)
	}
}

// TestHAOlderRecord: a stale HA store (its latest is 2, storage's newest
// restorable is 3).
func TestHAOlderRecord(t *testing.T) {
	d, st := resolveExport(t, "F2")
	in := haInput(t, "F2")
	j := &in.HA.Jobs[0]
	j.Checkpoints = j.Checkpoints[:1]
	if err := record.ReadPointers(context.Background(), mustStore(t, "F2"), in.HA); err != nil {
		t.Fatal(err)
	}
	if err := record.Compare(context.Background(), d, []record.Input{in}, &record.CompareOptions{Storage: st}); err != nil {
		t.Fatal(err)
	}
	wantCodes(t, d, record.WarnOlder)
}

// TestHAGoneRecord: the HA store's latest is a savepoint storage does not
// hold (deleted).
func TestHAGoneRecord(t *testing.T) {
	d, st := resolveExport(t, "F1")
	h := &record.HA{}
	for _, id := range []string{"0000000000000000003", "0000000000000000005"} {
		if err := h.AddZooKeeperCheckpoint(f1Job, "/flink/resumekit-sp/jobs/"+f1Job+"/checkpoints/"+id, readTestdata(t, "SP/zk-"+id+".bin")); err != nil {
			t.Fatal(err)
		}
	}
	if err := record.ReadPointers(context.Background(), mustStore(t, "SP"), h); err != nil {
		t.Fatal(err)
	}
	in := record.Input{Kind: resume.RecordFlinkHA, Source: "127.0.0.1:2181/flink/resumekit-sp", HA: h}
	if err := record.Compare(context.Background(), d, []record.Input{in}, &record.CompareOptions{Storage: st}); err != nil {
		t.Fatal(err)
	}
	wantCodes(t, d, record.WarnGone)
}

// TestHAMissingRecord: the HA store holds nothing for the job.
func TestHAMissingRecord(t *testing.T) {
	d, st := resolveExport(t, "F1")
	h, err := record.ParseConfigMaps("empty.json", []byte(`{"kind":"List","items":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	in := record.Input{Kind: resume.RecordFlinkHA, Source: "empty.json", HA: h}
	if err := record.Compare(context.Background(), d, []record.Input{in}, &record.CompareOptions{Storage: st}); err != nil {
		t.Fatal(err)
	}
	wantCodes(t, d, record.WarnMissing)
}

func mustStore(t *testing.T, scenario string) *record.Store {
	s, _ := haBucket(t, scenario)
	return s
}

const restJob = "b947c2867e3c38eda1a93e9a8355f0c8" // the job of testdata/records/rest and jrs

// jrsBucket holds the real JobResultStore entries of testdata/records/jrs:
// clean/ and dirty/ are two stores.
func jrsBucket(t *testing.T) *blob.Bucket {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "testdata", "records", "jrs"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := fileblob.OpenBucket(dir, &fileblob.Options{Metadata: fileblob.MetadataDontWrite})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// TestJobResultFinishedCleanly reads the entries Flink's
// FileSystemJobResultStore wrote for a job ended by stop-with-savepoint
// (SUCCEEDED), clean and dirty; with the job id it takes at most two reads
// and no listing.
func TestJobResultFinishedCleanly(t *testing.T) {
	for _, store := range []string{"clean", "dirty"} {
		t.Run(store, func(t *testing.T) {
			d, st := resolveExport(t, "F1")
			counted, rec := blobtest.Wrap(jrsBucket(t), nil)
			rs, err := record.ReadJobResults(context.Background(), counted, store, restJob)
			if err != nil || len(rs) != 1 || rs[0].Clean != (store == "clean") || !rs[0].FinishedCleanly() {
				t.Fatalf("results %+v, %v", rs, err)
			}
			if rec.Listed() != 0 || rec.Total() > 2 {
				t.Errorf("JobResultStore calls: %s; want at most two reads and no listing", rec)
			}
			listed, err := record.ReadJobResults(context.Background(), jrsBucket(t), store, "")
			if err != nil || len(listed) != 1 || listed[0] != rs[0] {
				t.Errorf("listed %+v, %v; want %+v", listed, err, rs)
			}
			in := record.Input{Kind: resume.RecordJobResultStore, Source: "jrs/" + store, JobResults: rs, JobResultsRead: true}
			if err := record.Compare(context.Background(), d, []record.Input{in}, &record.CompareOptions{Storage: st, JobID: restJob}); err != nil {
				t.Fatal(err)
			}
			wantCodes(t, d, record.WarnFinishedCleanly)
			if s := only(t, d); !s.FinishedCleanly || s.Status != "SUCCEEDED" {
				t.Errorf("source %+v", s)
			}
		})
	}
}

// TestJobResultNoEntry: no entry for the job says so, without a warning.
func TestJobResultNoEntry(t *testing.T) {
	d, st := resolveExport(t, "F1")
	rs, err := record.ReadJobResults(context.Background(), jrsBucket(t), "clean", f1Job)
	if err != nil || len(rs) != 0 {
		t.Fatalf("results %+v, %v", rs, err)
	}
	in := record.Input{Kind: resume.RecordJobResultStore, Source: "jrs", JobResults: rs, JobResultsRead: true}
	if err := record.Compare(context.Background(), d, []record.Input{in}, &record.CompareOptions{Storage: st}); err != nil {
		t.Fatal(err)
	}
	wantCodes(t, d)
}

// restServer serves recorded JobManager answers and counts the requests.
func restServer(t *testing.T, overview, checkpoints string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		switch {
		case r.URL.Path == "/jobs/overview":
			w.Write(readTestdata(t, overview))
		case strings.HasSuffix(r.URL.Path, "/checkpoints"):
			w.Write(readTestdata(t, checkpoints))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

// TestRESTJobRunning: the JobManager still runs the job: two REST calls.
func TestRESTJobRunning(t *testing.T) {
	d, st := resolveExport(t, "F1")
	srv, calls := restServer(t, "rest/overview-running.json", "rest/checkpoints.json")
	r, err := record.FetchREST(context.Background(), srv.Client(), srv.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("%d REST calls, want 2", n)
	}
	if r.JobID != restJob || r.State != "RUNNING" || r.Completed == nil || r.Completed.ID != 34 || !strings.HasSuffix(r.Completed.ExternalPath, "/chk-34") {
		t.Errorf("read %+v", r)
	}
	// Storage of the decision does not hold the running job's checkpoint.
	if err := record.Compare(context.Background(), d, []record.Input{{Kind: resume.RecordFlinkREST, Source: r.URL, REST: r}}, &record.CompareOptions{Storage: st}); err != nil {
		t.Fatal(err)
	}
	wantCodes(t, d, record.WarnJobRunning, record.WarnGone)
}

// TestRESTJobFinished: after a stop-with-savepoint the JobManager reports
// the job FINISHED: not running, no warning of it.
func TestRESTJobFinished(t *testing.T) {
	d, _ := resolveExport(t, "F1")
	srv, calls := restServer(t, "rest/overview-finished.json", "rest/checkpoints-finished.json")
	r, err := record.FetchREST(context.Background(), srv.Client(), srv.URL, restJob)
	if err != nil {
		t.Fatal(err)
	}
	if n := calls.Load(); n != 2 || r.State != "FINISHED" || !r.Terminal() {
		t.Errorf("%d calls, read %+v", n, r)
	}
	if err := record.Compare(context.Background(), d, []record.Input{{Kind: resume.RecordFlinkREST, Source: r.URL, REST: r}}, nil); err != nil {
		t.Fatal(err)
	}
	wantCodes(t, d, record.WarnDiffers)
}

// TestOperatorSnapshotDueForCleanup: the chosen savepoint is a PERIODIC
// FlinkStateSnapshot older than the history's max age, and the newer one
// the operator restores is gone from storage.
func TestOperatorSnapshotDueForCleanup(t *testing.T) {
	b := exportBucket(t, "F6s")
	opts := &flinkckpt.Options{FlinkRoot: exportRoots["F6s"] + "sp"}
	r, err := flinkckpt.NewResolver(b, "sp/", opts)
	if err != nil {
		t.Fatal(err)
	}
	d, err := (&resume.Chain{Resolvers: []resume.Resolver{r}}).Resolve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	op, err := record.ParseOperator("operator.json", readTestdata(t, "operator/f6s.json"))
	if err != nil {
		t.Fatal(err)
	}
	st := &record.BucketStorage{Savepoints: b, SavepointsPrefix: "sp/", Options: opts}
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	in := record.Input{Kind: resume.RecordK8sOperator, Source: "operator.json", Operator: op}
	if err := record.Compare(context.Background(), d, []record.Input{in}, &record.CompareOptions{Storage: st, Now: now}); err != nil {
		t.Fatal(err)
	}
	wantCodes(t, d, record.WarnSnapshotCleanup, record.WarnGone)
}

// TestUnreadableRecord: a record that could not be read is said, never used.
func TestUnreadableRecord(t *testing.T) {
	d, st := resolveExport(t, "F1")
	_, err := record.ParseConfigMaps("bad.json", []byte(`{"kind":"Secret"}`))
	in := record.Input{Kind: resume.RecordFlinkHA, Source: "bad.json", Err: err}
	if err := record.Compare(context.Background(), d, []record.Input{in}, &record.CompareOptions{Storage: st}); err != nil {
		t.Fatal(err)
	}
	wantCodes(t, d, record.WarnUnreadable)
	if d.Chosen == nil || !strings.HasSuffix(mustPos(t, d).Key, "chk-3/") {
		t.Errorf("the choice changed: %+v", d.Chosen)
	}
}

func mustPos(t *testing.T, d *resume.Decision) *flinkckpt.Position {
	p, err := flinkckpt.PositionOf(d.Chosen.Position)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestHATruncatedMetadata: HA recovery reads a checkpoint's state handles
// from the HA store's CompletedCheckpoint, not from _metadata (real Flink
// restored one with a truncated _metadata: conformance F11), so a record
// whose checkpoint's _metadata storage cannot read is not called a failing
// recovery.
func TestHATruncatedMetadata(t *testing.T) {
	dir := t.TempDir()
	src, _ := filepath.Abs(filepath.Join("..", "testdata", "conformance", "F2"))
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	meta := filepath.Join(dir, "ck", f2Job, "chk-4", "_metadata")
	if err := os.Truncate(meta, 100); err != nil {
		t.Fatal(err)
	}
	b, err := fileblob.OpenBucket(dir, &fileblob.Options{Metadata: fileblob.MetadataDontWrite})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	opts := &flinkckpt.Options{FlinkRoot: exportRoots["F2"] + "ck"}
	r, err := flinkckpt.NewResolver(b, "ck/", opts)
	if err != nil {
		t.Fatal(err)
	}
	d, err := (&resume.Chain{Resolvers: []resume.Resolver{r}}).Resolve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	st := &record.BucketStorage{Checkpoints: b, CheckpointsPrefix: "ck/", Options: opts}
	if err := record.Compare(context.Background(), d, []record.Input{haInput(t, "F2")}, &record.CompareOptions{Storage: st}); err != nil {
		t.Fatal(err)
	}
	wantCodes(t, d, record.WarnDiffers)
	if w := only(t, d).Warnings[0].Text; !strings.Contains(w, "HA store's own copy") {
		t.Errorf("warning %s", w)
	}
}
