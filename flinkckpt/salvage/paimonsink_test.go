package salvage_test

import (
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"time"

	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sinkstate"
	"github.com/resumekit/resumekit/flinkckpt/salvage"
	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/paimon/paimontest"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/livecheck"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
)

const paimonSinkUser = "0f5e1c9a-2b3d-4e6f-8a7b-9c0d1e2f3a4b"

// paimonManifest is a ManifestCommittable (version 4) of checkpoint id
// with no watermark, offsets, properties or messages.
func paimonManifest(id int64) []byte {
	b := binary.BigEndian.AppendUint64(nil, uint64(id))
	b = append(b, 1)
	for _, v := range []uint32{0, 0, 10, 0} {
		b = binary.BigEndian.AppendUint32(b, v)
	}
	return b
}

// paimonSinkSavepoint writes a savepoint with a KafkaSource and Paimon's
// committer holding checkpoint 8's committable of commit user
// paimonSinkUser.
func paimonSinkSavepoint(t *testing.T) (*flinkckpttest.Written, *flinkckpttest.Layout) {
	t.Helper()
	b := memblob.OpenBucket(nil)
	t.Cleanup(func() { b.Close() })
	l := &flinkckpttest.Layout{Bucket: b, Root: "s3a://b/"}
	user := append([]byte{byte(len(paimonSinkUser) + 1)}, paimonSinkUser...) // StringValue: length+1, ASCII units
	w, err := l.Savepoint(context.Background(), "savepoint-aaaaaa-000000000001", 8, &flinkckpttest.Checkpoint{Sources: []flinkckpttest.Source{
		flinkckpttest.KafkaSource("src", "topic", 10, 10),
		{UID: "Global Committer : sink", Parallelism: 1, ListStates: []flinkckpttest.ListState{
			{Name: sinkstate.CommitterStateName, Elements: []flinkckpttest.ListElement{{Data: collectorElement(4, paimonManifest(8))}}},
			{Name: sinkstate.CommitUserStateName, Elements: []flinkckpttest.ListElement{{Data: user}}},
		}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return w, l
}

// TestPaimonSinkAskTheTable: a salvaged snapshot's Paimon committer held
// checkpoint 8's committable. The sink table decides, by Paimon's rule:
// its commit user's latest snapshot at identifier 8 → committed, nothing
// lost (exact-input); at 7 → not committed, data-loss naming the table,
// the user and the checkpoint; without the table → data-loss as before.
// One listing of the table's snapshots per resolve.
func TestPaimonSinkAskTheTable(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name      string
		committed int64 // the user's latest commitIdentifier; 0: no table given
		want      resume.Guarantee
		code      resume.WarningCode
		text      string
	}{
		{"committed", 8, resume.ExactInput, salvage.WarnSinkCommittedChecked, "commitIdentifier 8 ≥ checkpoint 8: committed"},
		{"not committed", 7, resume.DataLoss, salvage.WarnSinkTransactionsPending, "the Paimon sink table db.sink: commit user " + paimonSinkUser + "'s latest snapshot 2 has commitIdentifier 7 < checkpoint 8: not-committed"},
		{"no table", 0, resume.DataLoss, salvage.WarnSinkTransactionsPending, "1 committable(s) prepared at checkpoint 8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, l := paimonSinkSavepoint(t)
			live := &livecheck.Checkers{}
			var rec *blobtest.Recorder
			if tc.committed != 0 {
				tb := paimontest.New(t, l.Bucket, "wh/db.db/sink")
				tb.SinkCommit(paimonSinkUser, tc.committed-1, t0).SinkCommit(paimonSinkUser, tc.committed, t0.Add(time.Minute)).Commit(t0.Add(2 * time.Minute))
				var wb = l.Bucket
				wb, rec = blobtest.Wrap(l.Bucket, nil)
				t.Cleanup(func() { wb.Close() })
				tbl, err := paimon.NewTable(wb, "wh/db.db/sink", nil)
				if err != nil {
					t.Fatal(err)
				}
				live.PaimonSink = tbl
			}
			r, err := salvage.NewResolver(l.Bucket, "", &salvage.Options{Snapshot: w.Dir, Live: live})
			if err != nil {
				t.Fatal(err)
			}
			c, err := r.Resolve(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if c.Guarantee != tc.want || !strings.Contains(warning(c, tc.code), tc.text) {
				t.Fatalf("guarantee %s, want %s; warnings %v", c.Guarantee, tc.want, c.Warnings)
			}
			p := c.Position.(salvage.Position)
			if len(p.Sinks) != 1 || (tc.committed != 0) != (p.Sinks[0].PaimonTable != nil) {
				t.Fatalf("sinks %+v", p.Sinks)
			}
			if rec != nil && rec.Count(blobtest.OpList) != 1 {
				t.Errorf("table cost %s, want one listing", rec)
			}
		})
	}
}

// TestPaimonSinkTableDown: the Paimon sink's table unreadable (its store
// failing every call) is a failure to look naming the committer and the
// table, never a better grade.
func TestPaimonSinkTableDown(t *testing.T) {
	w, l := paimonSinkSavepoint(t)
	paimontest.New(t, l.Bucket, "wh/db.db/sink").SinkCommit(paimonSinkUser, 8, time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	wb, _ := blobtest.Wrap(l.Bucket, &blobtest.Options{Fault: func(blobtest.Call) error { return errors.New("store down") }})
	t.Cleanup(func() { wb.Close() })
	tbl, err := paimon.NewTable(wb, "wh/db.db/sink", nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := salvage.NewResolver(l.Bucket, "", &salvage.Options{Snapshot: w.Dir, Live: &livecheck.Checkers{PaimonSink: tbl}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Resolve(context.Background()); err == nil || !strings.Contains(err.Error(), "store down") || !strings.Contains(err.Error(), "paimon sink table") {
		t.Fatalf("err %v", err)
	}
}
