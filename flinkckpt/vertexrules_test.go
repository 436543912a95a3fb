package flinkckpt_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/metadata"
)

// TestSetUIDHashPrecedence (issue 22 item 8): Flink maps an operator with
// a uid and a uid hash to the snapshot's state under the hash when there
// is any, and otherwise to the state under its uid's id
// (StateAssignmentOperation). A _metadata v5 operator recorded with a uid
// but another id had a uid hash: a job named by that uid restores it only
// if it keeps the hash, which resumekit cannot see — unknown, with a note.
func TestSetUIDHashPrecedence(t *testing.T) {
	hash := flinkckpt.OperatorID("the old generated id")
	byUID := flinkckpt.OperatorID("count")
	state := []metadata.SubtaskState{{ManagedOperator: opHandle}}
	both := &metadata.Checkpoint{Operators: []metadata.Operator{{ID: hash, SubtaskStates: state}, {ID: byUID, SubtaskStates: state}}}
	j := &flinkckpt.Job{AllUIDs: true}
	if err := j.AddUIDWithHash("count", strings.ToUpper(hash)); err != nil {
		t.Fatal(err)
	}
	c := flinkckpt.CheckCompat(both, j)
	if c.Operators[0].Match != flinkckpt.MatchRestored || c.Operators[1].Match != flinkckpt.MatchDropped || len(c.NewWithoutState) != 0 {
		t.Errorf("hash and uid state: %+v new %v", c.Operators, c.NewWithoutState)
	}
	onlyUID := &metadata.Checkpoint{Operators: []metadata.Operator{{ID: byUID, SubtaskStates: state}}}
	if c := flinkckpt.CheckCompat(onlyUID, j); c.Operators[0].Match != flinkckpt.MatchRestored || !c.Compatible {
		t.Errorf("uid state only: %+v", c.Operators)
	}
	if err := j.AddUIDWithHash("x", "12"); err == nil {
		t.Error("a bad hash was accepted")
	}

	v5 := &metadata.Checkpoint{Version: 5, Operators: []metadata.Operator{{ID: hash, UID: "count", Name: "count", SubtaskStates: state}}}
	for _, all := range []bool{false, true} {
		j := flinkckpt.JobFromUIDs("count")
		j.AllUIDs = all
		c := flinkckpt.CheckCompat(v5, j)
		if !cmp.Equal(c.Unknown, []string{hash}) || len(c.Dropped) != 0 ||
			!slices.ContainsFunc(c.Notes, func(n string) bool {
				return strings.Contains(n, "setUidHash") && strings.Contains(n, hash+" (uid count)")
			}) {
			t.Errorf("v5 hashed, all uids %v: unknown %v dropped %v notes %q", all, c.Unknown, c.Dropped, c.Notes)
		}
	}
	jh := &flinkckpt.Job{}
	if err := jh.AddUIDWithHash("count", hash); err != nil {
		t.Fatal(err)
	}
	if c := flinkckpt.CheckCompat(v5, jh); !c.Compatible {
		t.Errorf("v5 hashed, hash kept: %+v", c)
	}
	// Another uid entirely: dropped (the uid is recorded).
	if c := flinkckpt.CheckCompat(v5, flinkckpt.JobFromUIDs("other")); !cmp.Equal(c.Dropped, []string{hash}) {
		t.Errorf("v5 hashed, other uid: dropped %v unknown %v", c.Dropped, c.Unknown)
	}
}

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
	cc := flinkckpt.CheckCompat(mustMetadata(t, e, "ck/"+jobA+"/chk-4/"), changed)
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
