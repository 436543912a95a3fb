package paimon_test

import (
	"context"
	"testing"

	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/resumetest"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
)

// TestMaxGuarantee: a consumer offers exact input at best, so a failed
// Paimon resolver blocks a Kafka replay but not a checkpoint.
func TestMaxGuarantee(t *testing.T) {
	mem := memblob.OpenBucket(nil)
	t.Cleanup(func() { mem.Close() })
	// Every call of the store fails: the resolver cannot look.
	b, _ := blobtest.Wrap(mem, &blobtest.Options{Fault: blobtest.FailEvery(1)})
	t.Cleanup(func() { b.Close() })
	table, err := paimon.NewTable(b, "wh/db.db/orders", nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := paimon.NewResolver(table, "job-1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := resume.MaxGuarantee(r); got != resume.ExactInput {
		t.Fatalf("MaxGuarantee = %s, want exact-input", got)
	}
	kafka := resumetest.Static("kafka-offsets", resume.Candidate{
		Position: resumetest.Position{PositionKind: "kafka-offsets", Summary: "orders"}, Guarantee: resume.Replay, Reasons: []string{"commits"},
	})
	checkpoint := resumetest.Static("flink-checkpoints", resume.Candidate{
		Position: resumetest.Position{PositionKind: "flink-checkpoint", Summary: "chk-7"}, Guarantee: resume.ExactlyOnce, Reasons: []string{"complete"},
	})
	d, err := (&resume.Chain{Resolvers: []resume.Resolver{r, kafka}}).Resolve(context.Background())
	if d.Considered[0].Verdict != resume.VerdictFailed || d.Chosen != nil || d.Considered[1].Why != "blocked: paimon-consumer failed and could have offered exact-input" {
		t.Errorf("err %v\n%s", err, d.Explain())
	}
	d, err = (&resume.Chain{Resolvers: []resume.Resolver{r, checkpoint}}).Resolve(context.Background())
	if d.Chosen == nil || d.Chosen.Resolver != "flink-checkpoints" || resume.Classify(d, err) != resume.ResultChosen || !d.Chosen.HasWarning(resume.WarnSourceFailed) {
		t.Errorf("err %v\n%s", err, d.Explain())
	}
}
