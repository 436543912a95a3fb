package record_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/record"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
)

// The record scenarios of the conformance harness (conformance/scenarios
// J1, J2; the "record" kind) exported with conformance/run --export: the
// trees Flink wrote, the REST answers of the JobManager that wrote them
// (rest/), the JobResultStore entries (jrs/), and facts.json with what the
// harness's run recorded. testdata/records/README.md says which Flink
// version wrote which.

// recordScenario is one exported record scenario.
type recordScenario struct {
	dir    string
	bucket *blob.Bucket
	// root is the Flink URI of the scenario's work dir the trees were
	// written under; jobs the child's jobs in order, with their savepoints.
	root string
	jobs []struct {
		JobID      string `json:"jobId"`
		RestoredID *int64 `json:"restoredId"`
		RestoredAt string `json:"restoredPath"`
		Status     string `json:"status"`
		JobResult  string `json:"jobResultEntry"`
		Savepoints []struct {
			Path   string `json:"path"`
			Format string `json:"format"`
			Stop   bool   `json:"stop"`
		} `json:"savepoints"`
	}
}

func openRecordScenario(t *testing.T, name string) *recordScenario {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "testdata", "records", name))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "facts.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Root   string `json:"root"`
		Result struct {
			Passed bool `json:"passed"`
			Flink  struct {
				Run struct {
					Jobs json.RawMessage `json:"jobs"`
				} `json:"run"`
			} `json:"flink"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatalf("%s/facts.json: %v", name, err)
	}
	if !f.Result.Passed {
		t.Fatalf("%s: the exported scenario did not pass", name)
	}
	s := &recordScenario{dir: dir, root: strings.TrimSuffix(f.Root, "/") + "/"}
	if err := json.Unmarshal(f.Result.Flink.Run.Jobs, &s.jobs); err != nil || len(s.jobs) == 0 {
		t.Fatalf("%s/facts.json: jobs %s: %v", name, f.Result.Flink.Run.Jobs, err)
	}
	s.bucket, err = fileblob.OpenBucket(dir, &fileblob.Options{Metadata: fileblob.MetadataDontWrite})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.bucket.Close() })
	return s
}

// resolve resolves the scenario's trees of one job as resumectl resolve
// --flink-checkpoints ck --flink-savepoints sp --flink-job-id JOB would
// (one resolver, the savepoint dir a further location; the job is given
// because a checkout's file times do not say which job ran last),
// and returns the storage Compare looks in.
func (s *recordScenario) resolve(t *testing.T, jobID string) (*resume.Decision, *record.BucketStorage) {
	t.Helper()
	ckOpts := &flinkckpt.Options{FlinkRoot: s.root + "ck", JobID: jobID}
	spOpts := &flinkckpt.Options{FlinkRoot: s.root + "sp", JobID: jobID}
	one := *ckOpts
	one.Locations = []flinkckpt.Location{{Bucket: s.bucket, Prefix: "sp/", FlinkRoot: spOpts.FlinkRoot}}
	r, err := flinkckpt.NewResolver(s.bucket, "ck/", &one)
	if err != nil {
		t.Fatal(err)
	}
	d, err := (&resume.Chain{Resolvers: []resume.Resolver{r}}).Resolve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return d, &record.BucketStorage{Checkpoints: s.bucket, CheckpointsPrefix: "ck/", Options: ckOpts,
		Savepoints: s.bucket, SavepointsPrefix: "sp/", SavepointOptions: spOpts}
}

// serveREST answers as the scenario's JobManager did: /jobs/overview, the
// held (last) job's /jobs/:id/checkpoints, and the ended jobs'; it counts
// the requests.
func (s *recordScenario) serveREST(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	files := map[string]string{"/jobs/overview": "overview-running.json"}
	for i, j := range s.jobs {
		name := "checkpoints-running.json"
		if i < len(s.jobs)-1 {
			name = "checkpoints-finished-" + strconv.Itoa(i) + ".json"
		}
		files["/jobs/"+j.JobID+"/checkpoints"] = name
	}
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		name, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		data, err := os.ReadFile(filepath.Join(s.dir, "rest", name))
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(data)
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

// recordScenarios are the exports of a record scenario, one per Flink
// line that wrote it.
func recordScenarios(name string) []string { return []string{name, name + "-2.x"} }

// TestRESTRealRunningJobManager is conformance J1 on the answers of its
// real JobManager: job 0 ended by stop-with-savepoint, job 1 restored it,
// took a native savepoint and more checkpoints and still runs (a
// checkpoint held in progress). FetchREST takes two requests, picks the
// running job, and reads the latest completed checkpoint, the restored
// stop-with-savepoint and the savepoint; compared with the trees the same
// JobManager wrote, the record names storage's newest complete checkpoint
// (resumekit's choice) and says the job still runs, nothing else.
func TestRESTRealRunningJobManager(t *testing.T) {
	for _, name := range recordScenarios("J1") {
		t.Run(name, func(t *testing.T) {
			s := openRecordScenario(t, name)
			srv, calls := s.serveREST(t)
			r, err := record.FetchREST(context.Background(), srv.Client(), srv.URL, "")
			if err != nil {
				t.Fatal(err)
			}
			if n := calls.Load(); n != 2 {
				t.Errorf("%d REST calls, want 2", n)
			}
			held, ended := s.jobs[len(s.jobs)-1], s.jobs[0]
			if r.JobID != held.JobID || r.State != "RUNNING" || r.Terminal() {
				t.Fatalf("read job %s %s, want the held job %s RUNNING", r.JobID, r.State, held.JobID)
			}
			if r.Restored == nil || !r.Restored.Savepoint || !strings.HasSuffix(r.Restored.ExternalPath, filepath.Base(ended.Savepoints[len(ended.Savepoints)-1].Path)) {
				t.Errorf("restored %+v, want job 0's stop-with-savepoint %+v", r.Restored, ended.Savepoints)
			}
			if r.Savepoint == nil || !r.Savepoint.Savepoint || r.Savepoint.ExternalPath != held.Savepoints[len(held.Savepoints)-1].Path {
				t.Errorf("savepoint %+v, want %+v", r.Savepoint, held.Savepoints)
			}
			if r.Completed == nil || r.Completed.Savepoint || r.Completed.At.IsZero() {
				t.Fatalf("latest completed %+v", r.Completed)
			}
			d, st := s.resolve(t, held.JobID)
			chosen, err := flinkckpt.PositionOf(d.Chosen.Position)
			if err != nil {
				t.Fatal(err)
			}
			if chosen.JobID != held.JobID || chosen.CheckpointID != r.Completed.ID {
				t.Fatalf("resolve chose %s, the JobManager's latest completed is %d of %s", chosen, r.Completed.ID, held.JobID)
			}
			in := record.Input{Kind: resume.RecordFlinkREST, Source: r.URL, REST: r}
			if err := record.Compare(context.Background(), d, []record.Input{in}, &record.CompareOptions{Storage: st}); err != nil {
				t.Fatal(err)
			}
			wantCodes(t, d, record.WarnJobRunning)
			src := only(t, d)
			if src.CheckpointID != r.Completed.ID || src.Status != "RUNNING" || src.Storage != "complete (the chosen snapshot)" {
				t.Errorf("source %+v", src)
			}
		})
	}
}

// TestRESTRealEndedJob: the same JobManager's answers about job 0, ended
// by stop-with-savepoint: FINISHED, not running, its latest savepoint the
// stop-with-savepoint. Beside job 1's decision its snapshot is not the
// chosen one (record.differs), and nothing says it runs.
func TestRESTRealEndedJob(t *testing.T) {
	for _, name := range recordScenarios("J1") {
		t.Run(name, func(t *testing.T) {
			s := openRecordScenario(t, name)
			srv, calls := s.serveREST(t)
			ended := s.jobs[0]
			r, err := record.FetchREST(context.Background(), srv.Client(), srv.URL, ended.JobID)
			if err != nil {
				t.Fatal(err)
			}
			stop := ended.Savepoints[len(ended.Savepoints)-1]
			if n := calls.Load(); n != 2 || r.State != "FINISHED" || !r.Terminal() || r.Savepoint == nil || r.Savepoint.ExternalPath != stop.Path {
				t.Fatalf("%d calls, read %+v (savepoint %+v), want FINISHED with savepoint %s", n, r, r.Savepoint, stop.Path)
			}
			d, st := s.resolve(t, s.jobs[len(s.jobs)-1].JobID)
			in := record.Input{Kind: resume.RecordFlinkREST, Source: r.URL, REST: r}
			if err := record.Compare(context.Background(), d, []record.Input{in}, &record.CompareOptions{Storage: st}); err != nil {
				t.Fatal(err)
			}
			wantCodes(t, d, record.WarnDiffers)
		})
	}
}

// TestJobResultRealStopWithSavepoint is conformance J2's JobResultStore:
// the clean entry Flink's FileSystemJobResultStore wrote for a job ended by
// stop-with-savepoint. With the job id: at most two reads, no listing;
// listed: the same entry. Compared with the trees the job wrote, the
// decision chooses the stop-with-savepoint and the record says the job
// finished cleanly.
func TestJobResultRealStopWithSavepoint(t *testing.T) {
	for _, name := range recordScenarios("J2") {
		t.Run(name, func(t *testing.T) {
			s := openRecordScenario(t, name)
			job := s.jobs[0]
			counted, rec := blobtest.Wrap(s.bucket, nil)
			rs, err := record.ReadJobResults(context.Background(), counted, "jrs", job.JobID)
			if err != nil || len(rs) != 1 || !rs[0].Clean || rs[0].ApplicationStatus != "SUCCEEDED" || !rs[0].FinishedCleanly() {
				t.Fatalf("results %+v, %v", rs, err)
			}
			if rec.Listed() != 0 || rec.Total() > 2 {
				t.Errorf("JobResultStore calls: %s; want at most two reads and no listing", rec)
			}
			listed, err := record.ReadJobResults(context.Background(), s.bucket, "jrs", "")
			if err != nil || len(listed) != 1 || listed[0] != rs[0] {
				t.Errorf("listed %+v, %v; want %+v", listed, err, rs)
			}
			entry, err := os.ReadFile(filepath.Join(s.dir, "jrs", job.JobID+".json"))
			if err != nil {
				t.Fatal(err)
			}
			if parsed, err := record.ParseJobResult(job.JobID+".json", entry); err != nil || parsed.ApplicationStatus != "SUCCEEDED" || !parsed.Clean {
				t.Errorf("ParseJobResult: %+v, %v", parsed, err)
			}
			d, st := s.resolve(t, job.JobID)
			stop := job.Savepoints[len(job.Savepoints)-1]
			chosen, err := flinkckpt.PositionOf(d.Chosen.Position)
			if err != nil || !stop.Stop || !chosen.Savepoint || !strings.HasSuffix(stop.Path, filepath.Base(strings.TrimSuffix(chosen.Key, "/"))) {
				t.Fatalf("resolve chose %v (%v), the job's stop-with-savepoint is %+v", chosen, err, stop)
			}
			in := record.Input{Kind: resume.RecordJobResultStore, Source: "jrs", JobResults: rs, JobResultsRead: true}
			if err := record.Compare(context.Background(), d, []record.Input{in}, &record.CompareOptions{Storage: st}); err != nil {
				t.Fatal(err)
			}
			wantCodes(t, d, record.WarnFinishedCleanly)
			if src := only(t, d); !src.FinishedCleanly || src.Status != "SUCCEEDED" || src.JobID != job.JobID {
				t.Errorf("source %+v", src)
			}
		})
	}
}
