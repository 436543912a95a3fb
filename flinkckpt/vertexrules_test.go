package flinkckpt_test

import (
	"strings"
	"testing"
	"time"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/jobgraph"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
)

func id(i int) string { return strings.Repeat("0", 31) + string(rune('a'+i)) }

var opHandle = &metadata.OperatorHandle{Type: metadata.TypeOperatorStream,
	Stream: &metadata.StreamHandle{Type: metadata.TypeByteStream, Name: "s", Data: []byte{1}}}

// TestVertexRulesSaid (issue 22 item 8): finished operators and in-flight
// data restore only into a job whose vertices (chaining) fit, which no
// description gives. When the new job differs from the snapshot's, the
// candidate says so with a coded warning naming the operators; into the
// same operators it does not.
func TestVertexRulesSaid(t *testing.T) {
	e := newEnv(t, "ck/", "s3a://bucket/", nil)
	e.chk(jobA, 4, t0.Add(-time.Minute), &flinkckpttest.Checkpoint{Operators: 2, FinishedOperators: 1, Unaligned: true, Shared: shared("a", 1)})
	same := jobOf(t, 0, 1)
	if err := same.AddOperatorID(flinkckpttest.OperatorID(1000)); err != nil {
		t.Fatal(err)
	}
	c, _ := e.mustResolve(&flinkckpt.Options{Job: same})
	if c.HasWarning(flinkckpt.WarnFinishedVertices) || c.HasWarning(flinkckpt.WarnUnalignedChangedJob) || !c.HasWarning(flinkckpt.WarnUnaligned) {
		t.Errorf("same job: %q", c.Warnings)
	}
	changed := jobOf(t, 0, 1, 7) // a new operator
	if err := changed.AddOperatorID(flinkckpttest.OperatorID(1000)); err != nil {
		t.Fatal(err)
	}
	c, _ = e.mustResolve(&flinkckpt.Options{Job: changed})
	if !hasWarning(c.Warnings, flinkckpt.WarnFinishedVertices, flinkckpttest.OperatorID(1000)+`.*does not know the new job's chaining`) ||
		!hasWarning(c.Warnings, flinkckpt.WarnUnalignedChangedJob, flinkckpttest.OperatorID(0)+`.*does not know the new job's chaining`) {
		t.Errorf("changed job: %q", c.Warnings)
	}
	cc := jobgraph.CheckCompat(mustMetadata(t, e, "ck/"+jobA+"/chk-4/"), changed)
	if !cc.Operators[0].ChannelState || !cc.Operators[2].Finished || cc.Operators[1].ChannelState {
		t.Errorf("compat facts %+v", cc.Operators)
	}
}

func mustMetadata(t *testing.T, e *env, dir string) *metadata.Checkpoint {
	t.Helper()
	s, err := flinkckpt.Inspect(e.ctx, e.mem, dir, &flinkckpt.Options{SkipVerify: true})
	if s == nil || s.Metadata == nil {
		t.Fatalf("%s: %v", dir, err)
	}
	return s.Metadata
}
