package flinkckpt_test

import (
	"context"
	"errors"
	"regexp"
	"testing"
	"time"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/resumetest"
	"github.com/resumekit/resumekit/resume/resumetest/blobtest"
)

// TestChainWithCheckpointStoreDown: a real flinkckpt resolver on memblob
// whose listing answers an injected fault fails; it could have offered
// exactly-once, so under the default BlockWeaker the stateless Kafka
// candidate is blocked rather than deployed in place of a checkpoint nobody
// could see. ChooseAnyway takes the Kafka start; a healthy store wins on its
// own.
func TestChainWithCheckpointStoreDown(t *testing.T) {
	kafka := resume.WithMaxGuarantee(resumetest.Static("kafka-offsets", resume.Candidate{
		Position:  resumetest.Position{PositionKind: "kafka-offsets", Summary: "orders: partition:0,offset:42 (group job-1)"},
		Guarantee: resume.Replay, At: t0.Add(time.Hour), Reasons: []string{"group job-1 committed offsets"},
	}), resume.Replay)
	for _, tc := range []struct {
		name       string
		fault      func(blobtest.Call) error
		onFailure  resume.FailurePolicy
		wantChosen string // resolver name, "" for nothing
		wantResult resume.Result
	}{
		{"StoreDownBlocksKafka", blobtest.FailKeys(regexp.MustCompile(`^ck/`), blobtest.OpList), resume.BlockWeaker, "", resume.ResultFailed},
		{"StoreDownChooseAnyway", blobtest.FailKeys(regexp.MustCompile(`^ck/`), blobtest.OpList), resume.ChooseAnyway, "kafka-offsets", resume.ResultChosen},
		{"MetadataUnreadableBlocksKafka", blobtest.FailKeys(regexp.MustCompile(`_metadata$`), blobtest.OpRead), resume.BlockWeaker, "", resume.ResultFailed},
		{"StoreUpCheckpointWins", nil, resume.BlockWeaker, flinkckpt.DefaultName, resume.ResultChosen},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, "ck/", "s3a://bucket/", &blobtest.Options{Fault: tc.fault})
			e.chk(jobA, 7, t0, &flinkckpttest.Checkpoint{Shared: shared("a", 2)})
			ck, err := flinkckpt.NewResolver(e.bucket, "ck/", nil)
			if err != nil {
				t.Fatal(err)
			}
			chain := &resume.Chain{Resolvers: []resume.Resolver{ck, kafka}, Policy: resume.Policy{OnFailure: tc.onFailure}}
			d, err := chain.Resolve(context.Background())
			var fe *blobtest.FaultError
			if tc.fault != nil && (!errors.As(err, &fe) || errors.Is(err, resume.ErrNoPosition)) {
				t.Errorf("err = %v, want the injected fault and not ErrNoPosition", err)
			}
			got := ""
			if d.Chosen != nil {
				got = d.Chosen.Resolver
			}
			if got != tc.wantChosen {
				t.Fatalf("chosen %q, want %q\n%s", got, tc.wantChosen, d.Explain())
			}
			if r := resume.Classify(d, err); r != tc.wantResult {
				t.Errorf("Classify = %s, want %s", r, tc.wantResult)
			}
			if d.Chosen != nil && d.Chosen.HasWarning(resume.WarnSourceFailed) != (tc.fault != nil) {
				t.Errorf("warnings %v: %s only beside a failure", d.Chosen.Warnings, resume.WarnSourceFailed)
			}
			if tc.wantChosen == "" {
				if why := d.Considered[1].Why; why != "blocked: flink-checkpoints failed and could have offered exactly-once" {
					t.Errorf("kafka why = %q", why)
				}
			}
		})
	}
}
