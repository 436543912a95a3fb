package salvage_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sinkstate"
	"github.com/resumekit/resumekit/flinkckpt/salvage"
	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/paimon/paimontest"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/livecheck"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
)

// The source-ahead race for Paimon: the old job's MonitorSource wrote
// consumer "job" at checkpoint 5's notification (next snapshot 8, where
// chk-5 has it), and its Paimon sink committer had not committed
// checkpoint 5 when the job crashed. The paimon-consumer start at the
// consumer file, at the snapshot's source position, never commits
// checkpoint 5's output: it inherits the loss (chain.sink-pending), never
// exact-input; the sink table saying checkpoint 5 committed (commit user's
// latest identifier 5) lifts it. The restore commits it either way; the
// salvage at the same position is no better than data-loss, and the
// consumer start never better than the salvage. The restore and the
// salvage list the sink table's snapshots once in all (MemoPaimonSink).
func TestSourceAheadRacePaimon(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name      string
		committed int64 // the sink commit user's latest identifier
		pending   bool
	}{{"not committed", 4, true}, {"committed", 5, false}} {
		t.Run(tc.name, func(t *testing.T) {
			b := memblob.OpenBucket(nil)
			defer b.Close()
			src := paimontest.New(t, b, "wh/shop.db/orders").Schema(nil).CommitEvery(10, t0, time.Minute).Consumer("job", 8)
			sink := paimontest.New(t, b, "wh/shop.db/out")
			sink.SinkCommit(paimonSinkUser, tc.committed-1, t0).SinkCommit(paimonSinkUser, tc.committed, t0.Add(time.Minute))
			srcTable, err := paimon.NewTable(b, src.Path(), nil)
			if err != nil {
				t.Fatal(err)
			}
			sb, rec := blobtest.Wrap(b, nil)
			defer sb.Close()
			sinkTable, err := paimon.NewTable(sb, sink.Path(), nil)
			if err != nil {
				t.Fatal(err)
			}
			user := append([]byte{byte(len(paimonSinkUser) + 1)}, paimonSinkUser...)
			l := &flinkckpttest.Layout{Bucket: b, Prefix: "ck/", Root: "s3a://b/"}
			if _, err := l.Checkpoint(ctx, "00000000000000000000000000000b05", 5, &flinkckpttest.Checkpoint{Sources: []flinkckpttest.Source{
				flinkckpttest.MonitorSource("src", 8),
				{UID: "Global Committer : sink", Parallelism: 1, ListStates: []flinkckpttest.ListState{
					{Name: sinkstate.CommitterStateName, Elements: []flinkckpttest.ListElement{{Data: collectorElement(4, paimonManifest(5))}}},
					{Name: sinkstate.CommitUserStateName, Elements: []flinkckpttest.ListElement{{Data: user}}},
				}},
			}}); err != nil {
				t.Fatal(err)
			}
			live := &livecheck.Checkers{Paimon: srcTable, PaimonSink: livecheck.MemoPaimonSink(sinkTable)}
			rs, err := salvage.NewResolvers(b, "ck/", &flinkckpt.Options{FlinkRoot: "s3a://b/ck/", Live: live}, nil)
			if err != nil {
				t.Fatal(err)
			}
			pr, err := paimon.NewResolver(srcTable, "job", nil)
			if err != nil {
				t.Fatal(err)
			}
			d, err := (&resume.Chain{Resolvers: append(rs, pr), Policy: resume.Policy{MinGuarantee: resume.DataLoss}}).Resolve(ctx)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]*resume.Candidate{}
			for _, o := range d.Considered {
				got[o.Resolver] = o.Candidate
			}
			r, sv, p := got[flinkckpt.DefaultName], got[salvage.DefaultName], got[paimon.DefaultName]
			if r == nil || sv == nil || p == nil {
				t.Fatalf("considered %+v", d.Considered)
			}
			if r.Guarantee != resume.ExactlyOnce || tc.pending && sv.Guarantee != resume.DataLoss || p.Guarantee > sv.Guarantee && tc.pending {
				t.Errorf("restore %s %v; salvage %s %v", r.Guarantee, r.Warnings, sv.Guarantee, sv.Warnings)
			}
			w := warning(*p, resume.WarnSinkPending)
			// The restore and the salvage share the checker set: one
			// listing of the sink table in all.
			if n := rec.Count(blobtest.OpList); n != 1 {
				t.Errorf("sink table cost %s, want one listing", rec)
			}
			switch {
			case tc.pending && (p.Guarantee != resume.DataLoss || !strings.Contains(w, "checkpoint 5") || !strings.Contains(w, "paimon:shop.orders at 8 (the snapshot's 8)")):
				t.Errorf("pending: paimon-consumer %s %v", p.Guarantee, p.Warnings)
			case !tc.pending && (p.Guarantee == resume.DataLoss || w != ""):
				t.Errorf("committed: paimon-consumer %s %v", p.Guarantee, p.Warnings)
			}
		})
	}
}
