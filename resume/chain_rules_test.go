package resume_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/resumetest"
)

// TestContextEndedBeforeTheDecisionChoosesNothing: every resolver has
// answered, and the context ends before the chain decides (the policy's
// clock, read once after the answers are in, cancels it). Nothing is
// chosen, each offer is rejected saying why, and the error wraps
// context.Canceled. With the context still live the same chain chooses:
// only the ended context stands between the answers and a choice. No race:
// the cancel happens on the chain's own goroutine between the answers and
// the choice.
func TestContextEndedBeforeTheDecisionChoosesNothing(t *testing.T) {
	chain := func(now func() time.Time) *resume.Chain {
		return &resume.Chain{
			Resolvers: []resume.Resolver{static("a", resume.ExactlyOnce, t0), static("b", resume.Replay, t0)},
			Policy:    resume.Policy{Now: now},
		}
	}
	d, err := chain(func() time.Time { return t0 }).Resolve(context.Background())
	if err != nil || d.Chosen == nil || d.Chosen.Resolver != "a" {
		t.Fatalf("live context: chosen %+v, err %v", d.Chosen, err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	d, err = chain(func() time.Time {
		calls++
		cancel()
		return t0
	}).Resolve(ctx)
	if calls == 0 {
		t.Fatal("the chain never read its clock: the test cannot end the context before the decision")
	}
	if d.Chosen != nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("chosen %+v, err %v; want nothing chosen and context.Canceled", d.Chosen, err)
	}
	if errors.Is(err, resume.ErrNoPosition) {
		t.Errorf("err %v wraps ErrNoPosition: an ended context is a failure", err)
	}
	for _, o := range d.Considered {
		if o.Verdict != resume.VerdictRejected || o.Why != "the context ended before the decision: nothing is chosen" || o.Candidate == nil {
			t.Errorf("%s: verdict %s why %q", o.Resolver, o.Verdict, o.Why)
		}
	}
	if got := resume.Classify(d, err); got != resume.ResultFailed {
		t.Errorf("Classify = %s, want failed", got)
	}
}

// TestAllLaunchUnionOfConfig: the combined launch holds every part's
// arguments, Flink configuration keys and options (the same key with the
// same value once); a configuration key set differently fails.
func TestAllLaunchUnionOfConfig(t *testing.T) {
	part := func(name string, l resume.Launch) resume.Resolver {
		return resumetest.Static(name, resume.Candidate{
			Position:  resumetest.Position{PositionKind: name, Summary: name, Start: l},
			Guarantee: resume.Replay, At: t0, Reasons: []string{"x"},
		})
	}
	a := part("a", resume.Launch{Config: map[string]string{"a.one": "1", "shared": "s"}, Options: map[string]string{"opt.a": "x"}})
	b := part("b", resume.Launch{Config: map[string]string{"b.one": "2", "shared": "s"}, Options: map[string]string{"opt.b": "y"}})
	c, err := resume.All("both", a, b).Resolve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	l := c.Position.Launch()
	if diff := cmp.Diff(map[string]string{"a.one": "1", "b.one": "2", "shared": "s"}, l.Config); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"opt.a": "x", "opt.b": "y"}, l.Options); diff != "" {
		t.Errorf("options (-want +got):\n%s", diff)
	}
	other := part("c", resume.Launch{Config: map[string]string{"shared": "t"}})
	if _, err := resume.All("both", a, other).Resolve(context.Background()); err == nil || !strings.Contains(err.Error(), `config "shared" differently`) {
		t.Errorf("conflicting config: err %v", err)
	}
}
