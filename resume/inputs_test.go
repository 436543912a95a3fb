package resume_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/resumetest"
)

// inputPos is a position that says where it starts its inputs.
type inputPos struct {
	resumetest.Position
	starts []resume.InputStart
}

func (p inputPos) InputStarts() []resume.InputStart { return p.starts }

func inputCand(g resume.Guarantee, restore bool, starts ...resume.InputStart) resume.Candidate {
	p := inputPos{Position: resumetest.Position{PositionKind: "test", Summary: "p"}, starts: starts}
	if restore {
		p.Start.Args = []string{"-s", "s3a://b/ck/chk-1"}
	}
	return resume.Candidate{Position: p, Guarantee: g, At: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC), Reasons: []string{"found"}}
}

// A candidate that starts a partition below what another candidate proved
// gone is graded data-loss by the chain, with a warning naming both; one
// that starts at or above it keeps its grade; a restore graded data-loss
// does not get "operator state starts empty".
func TestChainProvedLost(t *testing.T) {
	in := resume.KafkaInput("orders", 0)
	for _, tc := range []struct {
		name      string
		offset    int64
		want      resume.Guarantee
		wantProof bool
	}{
		{"Below", 10, resume.DataLoss, true},
		{"JustBelow", 49, resume.DataLoss, true},
		{"AtLogStart", 50, resume.ExactlyOnce, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			restore := resumetest.Static("restore", inputCand(resume.ExactlyOnce, true, resume.InputStart{Input: in, Offset: tc.offset, GoneBelow: -1}))
			salvaged := resumetest.Static("salvage", inputCand(resume.DataLoss, false, resume.InputStart{Input: in, Offset: 10, GoneBelow: 50}))
			other := resumetest.Static("other", inputCand(resume.ExactlyOnce, false, resume.InputStart{Input: resume.KafkaInput("orders", 1), Offset: 0, GoneBelow: -1}))
			d, _ := (&resume.Chain{Resolvers: []resume.Resolver{restore, salvaged, other}, Policy: resume.Policy{MinGuarantee: resume.DataLoss}}).Resolve(context.Background())
			got := d.Considered[0].Candidate
			if got.Guarantee != tc.want || got.HasWarning(resume.WarnProvedLost) != tc.wantProof {
				t.Fatalf("guarantee %s warnings %v", got.Guarantee, got.Warnings)
			}
			if text := strings.Join(warningTexts(got), "\n"); tc.wantProof && (!strings.Contains(text, "kafka:orders/0 starts at") || !strings.Contains(text, "salvage found everything below 50 gone")) {
				t.Errorf("warning %v", got.Warnings)
			}
			if o := d.Considered[2].Candidate; o.Guarantee != resume.ExactlyOnce {
				t.Errorf("another partition's candidate graded %s", o.Guarantee)
			}
			if tc.want == resume.DataLoss {
				d, _ = (&resume.Chain{Resolvers: []resume.Resolver{restore, salvaged}, Policy: resume.Policy{MinGuarantee: resume.DataLoss}}).Resolve(context.Background())
				if d.Chosen == nil || d.Chosen.Resolver != "restore" || d.Chosen.HasWarning(resume.WarnStateStartsEmpty) {
					t.Errorf("chosen %+v", d.Chosen)
				}
			}
		})
	}
}

func warningTexts(c *resume.Candidate) []string {
	var out []string
	for _, w := range c.Warnings {
		out = append(out, w.Text)
	}
	return out
}
