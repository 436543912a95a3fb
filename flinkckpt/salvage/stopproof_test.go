package salvage_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"gocloud.dev/blob/fileblob"
	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sinkstate"
	"github.com/resumekit/resumekit/flinkckpt/record"
	"github.com/resumekit/resumekit/flinkckpt/salvage"
	"github.com/resumekit/resumekit/resume"
)

// jrsJob is the job of the real JobResultStore entries in
// flinkckpt/testdata/records/jrs (Flink's FileSystemJobResultStore, a job
// ended by stop-with-savepoint: SUCCEEDED).
const jrsJob = "b947c2867e3c38eda1a93e9a8355f0c8"

// TestSinkStopProofFromJobResultStore: a plain savepoint (its properties
// record no stop) of job b947c2… whose committer held checkpoint 8's
// transactions, salvaged with the real JobResultStore's entry of that job
// (clean or dirty: SUCCEEDED either way): exact-input, the
// salvage.sink-committed-by-stop warning naming the entry. The same entry
// beside a savepoint of another job, or a FAILED entry of the job, proves
// nothing: data-loss as before.
func TestSinkStopProofFromJobResultStore(t *testing.T) {
	ctx := context.Background()
	dir, err := filepath.Abs(filepath.Join("..", "testdata", "records", "jrs"))
	if err != nil {
		t.Fatal(err)
	}
	jrs, err := fileblob.OpenBucket(dir, &fileblob.Options{Metadata: fileblob.MetadataDontWrite})
	if err != nil {
		t.Fatal(err)
	}
	defer jrs.Close()
	failed, err := record.ParseJobResult(jrsJob+".json", []byte(`{"result":{"id":"`+jrsJob+`","application-status":"FAILED","accumulator-results":{},"net-runtime":20575},"version":1}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, store, savepoint string
		results                []record.JobResult // nil: read the store
		want                   resume.Guarantee
		proof                  string
	}{
		{"clean entry", "clean", "savepoint-b947c2-0123456789ab", nil, resume.ExactInput, `the JobResultStore jrs/clean says job ` + jrsJob + ` ended SUCCEEDED (clean entry "clean/` + jrsJob + `.json")`},
		{"dirty entry", "dirty", "savepoint-b947c2-0123456789ab", nil, resume.ExactInput, `(dirty (cleanup not finished) entry "dirty/` + jrsJob + `_DIRTY.json")`},
		{"another job", "clean", "savepoint-aaaaaa-0123456789ab", nil, resume.DataLoss, ""},
		{"failed", "clean", "savepoint-b947c2-0123456789ab", []record.JobResult{failed}, resume.DataLoss, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs := tc.results
			if rs == nil {
				if rs, err = record.ReadJobResults(ctx, jrs, tc.store, ""); err != nil || len(rs) != 1 {
					t.Fatalf("%+v %v", rs, err)
				}
			}
			b := memblob.OpenBucket(nil)
			defer b.Close()
			l := &flinkckpttest.Layout{Bucket: b, Root: "s3a://b/"}
			w, err := l.Savepoint(ctx, tc.savepoint, 8, &flinkckpttest.Checkpoint{Sources: []flinkckpttest.Source{
				flinkckpttest.KafkaSource("src", "topic", 10, 10),
				{UID: "Sink Committer: sink", Parallelism: 2, ListStates: []flinkckpttest.ListState{{Name: sinkstate.CommitterStateName,
					Elements: []flinkckpttest.ListElement{{Subtask: 0, Data: k1Element(t)}, {Subtask: 1, Data: emptyCollector}}}}},
			}})
			if err != nil {
				t.Fatal(err)
			}
			r, err := salvage.NewResolver(b, "", &salvage.Options{Snapshot: w.Dir, StopProof: salvage.RecordStopProof(record.JobResultsRecord("jrs/"+tc.store, rs))})
			if err != nil {
				t.Fatal(err)
			}
			c, err := r.Resolve(ctx)
			if err != nil {
				t.Fatal(err)
			}
			got := warning(c, salvage.WarnSinkCommittedByStop)
			if c.Guarantee != tc.want || tc.proof != "" && !strings.Contains(got, tc.proof) || tc.proof == "" && got != "" {
				t.Fatalf("guarantee %s, want %s; warning %q; warnings %v", c.Guarantee, tc.want, got, c.Warnings)
			}
		})
	}
}
