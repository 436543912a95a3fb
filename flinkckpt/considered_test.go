package flinkckpt_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/resume"
)

// TestConsidered: the chosen position lists what the resolver passed over
// (an incomplete and a broken checkpoint) and the other job dir's head it
// ranked below, with their times; the list survives the decision
// document.
func TestConsidered(t *testing.T) {
	e := newEnv(t, "ck/", "s3a://bucket/", nil)
	e.chk(jobA, 4, t0, &flinkckpttest.Checkpoint{Shared: shared("a", 2)})
	e.chk(jobA, 5, t0.Add(time.Minute), &flinkckpttest.Checkpoint{Shared: shared("b", 2)})
	e.chk(jobA, 6, time.Time{}, &flinkckpttest.Checkpoint{Incomplete: true})
	e.chk(jobB, 9, t0.Add(-time.Hour), &flinkckpttest.Checkpoint{Shared: shared("c", 2)})
	if err := e.mem.Delete(e.ctx, "ck/"+jobA+"/shared/b-0001.sst"); err != nil {
		t.Fatal(err)
	}
	c, p := e.mustResolve(nil)
	if p.CheckpointID != 4 {
		t.Fatalf("chose %d", p.CheckpointID)
	}
	type row struct {
		Key, Outcome string
		At           time.Time
	}
	var got []row
	for _, s := range p.Considered {
		got = append(got, row{s.Key, s.Outcome, s.At})
		if s.Why == "" || s.Name == "" {
			t.Errorf("%s: no name or why: %+v", s.Key, s)
		}
	}
	want := []row{
		{"ck/" + jobA + "/chk-6/", flinkckpt.ConsideredIncomplete, time.Time{}},
		{"ck/" + jobA + "/chk-5/", flinkckpt.ConsideredBroken, t0.Add(time.Minute)},
		{"ck/" + jobB + "/chk-9/", flinkckpt.ConsideredRankedBelow, t0.Add(-time.Hour)},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("considered (-want +got):\n%s", diff)
	}
	doc, err := json.Marshal(resume.Decision{Chosen: &c, Considered: []resume.Outcome{{Resolver: c.Resolver, Candidate: &c, Verdict: resume.VerdictChosen}}})
	if err != nil {
		t.Fatal(err)
	}
	var d resume.Decision
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatal(err)
	}
	back, err := flinkckpt.PositionOf(d.Chosen.Position)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(p.Considered, back.Considered); diff != "" {
		t.Errorf("read back (-want +got):\n%s", diff)
	}
}
