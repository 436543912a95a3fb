package record_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/resumekit/resumekit/flinkckpt/record"
)

// Every reader, on any input: an answer or an error, never a panic, and
// no allocation beyond the input's bounds. Seeds: Flink's own bytes from
// testdata/records and testdata/fuzz/<target>.

// FuzzParseHandle: a ZooKeeper node's data or a ConfigMap value (the
// Java-serialized state handle).
func FuzzParseHandle(f *testing.F) {
	for _, n := range []string{"F2/zk-0000000000000000004.bin", "SP/zk-0000000000000000005.bin"} {
		f.Add(readTestdata(f, n))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, _, err := record.ParseHandle("node", data)
		if err == nil && file == "" {
			t.Fatal("no error and no file")
		}
	})
}

// FuzzParseCompleted: a CompletedCheckpoint file of HA storage.
func FuzzParseCompleted(f *testing.F) {
	for _, n := range []string{"F1/ha/completedCheckpoint50f37f686c0f", "SP/ha/completedCheckpoint9889fc4e75c0"} {
		f.Add(readTestdata(f, n))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := record.ParseCompleted("file", data)
		if err == nil && (c == nil || len(c.JobID) != 32) {
			t.Fatalf("no error and %+v", c)
		}
	})
}

// FuzzParseConfigMaps: kubectl get configmap -o json output.
func FuzzParseConfigMaps(f *testing.F) {
	f.Add(readTestdata(f, "F2/configmaps.json"))
	f.Add([]byte(`{"kind":"ConfigMap","metadata":{"name":"c-00000000000000000000000000000000-config-map"},"data":{"counter":"3","checkpointID-0000000000000000002":"rO0ABXA="}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := record.ParseConfigMaps("cm.json", data)
		if err != nil {
			return
		}
		for _, j := range h.Jobs {
			for i := 1; i < len(j.Checkpoints); i++ {
				if j.Checkpoints[i-1].ID > j.Checkpoints[i].ID {
					t.Fatalf("entries out of order: %+v", j.Checkpoints)
				}
			}
		}
	})
}

// FuzzParseJobResult: a JobResultStore entry.
func FuzzParseJobResult(f *testing.F) {
	f.Add("b947c2867e3c38eda1a93e9a8355f0c8.json", readTestdata(f, "jrs/clean/b947c2867e3c38eda1a93e9a8355f0c8.json"))
	f.Add("7415910a0a4404aad130c2d00b0c2041.json", readTestdata(f, "J2/jrs/7415910a0a4404aad130c2d00b0c2041.json"))
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		r, err := record.ParseJobResult(name, data)
		if err == nil && (r.JobID == "" || r.ApplicationStatus == "") {
			t.Fatalf("no error and %+v", r)
		}
	})
}

// FuzzParseOperator: kubectl output of the operator's resources.
func FuzzParseOperator(f *testing.F) {
	f.Add(readTestdata(f, "operator/f6s.json"))
	f.Fuzz(func(t *testing.T, data []byte) {
		op, err := record.ParseOperator("op.json", data)
		if err != nil {
			return
		}
		op.DueForCleanup(record.CleanupPolicy{SavepointMaxCount: 2}, time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC))
	})
}

type replay struct{ overview, checkpoints []byte }

func (r replay) RoundTrip(req *http.Request) (*http.Response, error) {
	body := r.checkpoints
	if strings.HasSuffix(req.URL.Path, "/overview") {
		body = r.overview
	}
	return &http.Response{StatusCode: 200, Body: io.NopCloser(bytes.NewReader(body)), Request: req}, nil
}

// FuzzFetchREST: the JobManager's two answers, replayed in-process (the
// transport hands the fuzzer's bytes back as the bodies).
func FuzzFetchREST(f *testing.F) {
	f.Add(readTestdata(f, "rest/overview-running.json"), readTestdata(f, "rest/checkpoints.json"))
	f.Add(readTestdata(f, "J1/rest/overview-running.json"), readTestdata(f, "J1/rest/checkpoints-running.json"))
	f.Fuzz(func(t *testing.T, overview, checkpoints []byte) {
		c := &http.Client{Transport: replay{overview, checkpoints}}
		r, err := record.FetchREST(context.Background(), c, "http://127.0.0.1:8081", "")
		if err == nil && r == nil {
			t.Fatal("no error and no answer")
		}
	})
}
