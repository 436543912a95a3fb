package flinkckpt_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/jobgraph"
)

// The deprecated names are the moved ones, not copies (issue 24): a value
// of either type is the other, and errors.Is sees one sentinel.
var (
	_ *jobgraph.Job                 = (*flinkckpt.Job)(nil)
	_ *jobgraph.Compat              = (*flinkckpt.Compat)(nil)
	_ *jobgraph.PlanOptions         = (*flinkckpt.PlanOptions)(nil)
	_ jobgraph.CompatProblem        = flinkckpt.CompatProblem{}
	_ jobgraph.ProblemCode          = flinkckpt.ProblemParallelismAboveMaxPar
	_ jobgraph.Match                = flinkckpt.MatchUnknown
	_ func(string) string           = flinkckpt.OperatorID
	_ func(...string) *jobgraph.Job = flinkckpt.JobFromUIDs
)

func TestDeprecatedJobAliases(t *testing.T) {
	if flinkckpt.OperatorID("count") != jobgraph.OperatorID("count") {
		t.Error("OperatorID differs")
	}
	_, err := flinkckpt.ParsePlan([]byte("[]"), nil)
	if !errors.Is(err, jobgraph.ErrMalformedPlan) || !errors.Is(err, flinkckpt.ErrMalformedPlan) {
		t.Errorf("ParsePlan([]) = %v, want ErrMalformedPlan under both names", err)
	}
	for _, e := range []struct{ old, moved error }{
		{flinkckpt.ErrMalformedPlan, jobgraph.ErrMalformedPlan},
		{flinkckpt.ErrPlanTooLarge, jobgraph.ErrPlanTooLarge},
		{flinkckpt.ErrUnknownNodeType, jobgraph.ErrUnknownNodeType},
		{flinkckpt.ErrUIDCollision, jobgraph.ErrUIDCollision},
	} {
		if e.old != e.moved || !strings.HasPrefix(e.old.Error(), "flinkckpt: ") {
			t.Errorf("%v is not %v", e.old, e.moved)
		}
	}
}
