package salvage_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gocloud.dev/blob"
	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sinkstate"
	"github.com/resumekit/resumekit/flinkckpt/salvage"
	"github.com/resumekit/resumekit/resume"
)

// stopSavepoint writes a savepoint as committerSavepoint does (a
// KafkaSource at offset 10 of two partitions, a committer holding a real K1
// pending committable on subtask 0) with the given post-checkpoint action.
func stopSavepoint(t *testing.T, action metadata.PostCheckpointAction) (*flinkckpttest.Written, *blob.Bucket) {
	t.Helper()
	b := memblob.OpenBucket(nil)
	t.Cleanup(func() { b.Close() })
	l := &flinkckpttest.Layout{Bucket: b, Root: "s3a://b/"}
	w, err := l.Savepoint(context.Background(), "savepoint-aaaaaa-000000000001", 8, &flinkckpttest.Checkpoint{Action: action, Drained: action == metadata.ActionTerminate, Sources: []flinkckpttest.Source{
		flinkckpttest.KafkaSource("src", "topic", 10, 10),
		{UID: "Sink Committer: sink", Parallelism: 2, ListStates: []flinkckpttest.ListState{{Name: sinkstate.CommitterStateName,
			Elements: []flinkckpttest.ListElement{{Subtask: 0, Data: k1Element(t)}, {Subtask: 1, Data: emptyCollector}}}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return w, b
}

// TestSinkStopWithSavepoint: the savepoint of a completed stop (flink stop,
// SUSPEND; flink stop --drain, TERMINATE) holds its own checkpoint's
// committables, but the job ended only after committing them: a stateless
// start at its positions loses nothing (exact-input), with a warning that
// names the savepoint's properties as the proof. A savepoint of a running
// job (NONE) keeps the data-loss grade.
func TestSinkStopWithSavepoint(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		action metadata.PostCheckpointAction
		want   resume.Guarantee
		proof  string
	}{
		{metadata.ActionSuspend, resume.ExactInput, "post-checkpoint action SUSPEND: flink stop"},
		{metadata.ActionTerminate, resume.ExactInput, "post-checkpoint action TERMINATE: flink stop --drain"},
		{metadata.ActionNone, resume.DataLoss, ""},
	} {
		t.Run(string(tc.action), func(t *testing.T) {
			w, b := stopSavepoint(t, tc.action)
			r, err := salvage.NewResolver(b, "", &salvage.Options{Snapshot: w.Dir})
			if err != nil {
				t.Fatal(err)
			}
			c, err := r.Resolve(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if c.Guarantee != tc.want {
				t.Fatalf("guarantee %s, want %s; warnings %v reasons %q", c.Guarantee, tc.want, c.Warnings, c.Reasons)
			}
			got := warning(c, salvage.WarnSinkCommittedByStop)
			if tc.proof == "" {
				if got != "" || warning(c, salvage.WarnSinkTransactionsPending) == "" {
					t.Errorf("warnings %v", c.Warnings)
				}
				return
			}
			if !strings.Contains(got, tc.proof) || !strings.Contains(got, "1 committable(s) prepared at checkpoint 8") || warning(c, salvage.WarnSinkTransactionsPending) != "" {
				t.Errorf("warning %q; warnings %v", got, c.Warnings)
			}
			p := c.Position.(salvage.Position)
			if len(p.Sinks) != 1 || p.Sinks[0].Lost != 0 || !strings.Contains(p.Sinks[0].CommittedByStop, tc.proof) {
				t.Errorf("sinks %+v", p.Sinks)
			}
		})
	}
}

// TestSinkStopProofHook: a savepoint whose properties record no stop (a
// plain savepoint) counts as a completed stop's when Options.StopProof
// says so (what the JobResultStore's clean entry proves), and the warning
// names that proof; the hook failing is a failure to look, never a guess.
func TestSinkStopProofHook(t *testing.T) {
	ctx := context.Background()
	w, b := stopSavepoint(t, metadata.ActionNone)
	calls := 0
	r, err := salvage.NewResolver(b, "", &salvage.Options{Snapshot: w.Dir, StopProof: func(_ context.Context, s *flinkckpt.Snapshot) (string, error) {
		calls++
		return "the JobResultStore's clean entry of job 3ce6417f finished after savepoint " + s.Path, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.Resolve(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c.Guarantee != resume.ExactInput || calls != 1 || !strings.Contains(warning(c, salvage.WarnSinkCommittedByStop), "JobResultStore's clean entry of job 3ce6417f") {
		t.Fatalf("guarantee %s after %d calls; warnings %v", c.Guarantee, calls, c.Warnings)
	}
	boom := errors.New("jrs unreadable")
	r, _ = salvage.NewResolver(b, "", &salvage.Options{Snapshot: w.Dir, StopProof: func(context.Context, *flinkckpt.Snapshot) (string, error) { return "", boom }})
	if _, err := r.Resolve(ctx); !errors.Is(err, boom) {
		t.Fatalf("err %v", err)
	}
}

// TestRealStopSavepointRecordsTheStop: real Flink 1.20.3's stop-with-
// savepoint (F6s, "Suspend Savepoint" id 6) records SUSPEND in its
// _metadata properties and holds its committer's committables of
// checkpoint 6 (JournalSink, one per subtask) — what the rule above keys
// on; F6s's plain savepoint (id 3) records NONE.
func TestRealStopSavepointRecordsTheStop(t *testing.T) {
	for dir, want := range map[string]metadata.PostCheckpointAction{
		"savepoint-3ce641-6f1a07e53b19": metadata.ActionSuspend,
		"savepoint-3ce641-fe284895a79a": metadata.ActionNone,
	} {
		root := filepath.Join("../testdata/conformance/F6s/sp", dir)
		data, err := os.ReadFile(filepath.Join(root, "_metadata"))
		if err != nil {
			t.Fatal(err)
		}
		md, err := metadata.Parse(data, nil)
		if err != nil {
			t.Fatal(err)
		}
		if md.Action != want || !md.Savepoint {
			t.Errorf("%s: action %q, want %q", dir, md.Action, want)
		}
		if want != metadata.ActionSuspend {
			continue
		}
		st, err := sinkstate.Decode(md, &sinkstate.Options{ReadStream: func(h *metadata.StreamHandle) ([]byte, error) {
			return os.ReadFile(filepath.Join(root, filepath.Base(h.Path)))
		}})
		if err != nil || len(st.Committers) != 1 || st.Committers[0].PendingCommittables() != 2 || st.Committers[0].Pending()[0].CheckpointID != 6 {
			t.Errorf("%s: committers %+v, %v", dir, st, err)
		}
	}
}
