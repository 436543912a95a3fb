package paimon_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/resumekit/resumekit/paimon"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/resumetest"
)

// TestPositionContract: the position keeps the rules of every resolver
// package's position (value receivers; read back from a decision document,
// PositionOf gives the same JSON, summary and launch).
func TestPositionContract(t *testing.T) {
	for _, p := range []paimon.Position{goldenPosition(), rollbackPosition()} {
		for _, err := range resumetest.CheckPosition(p, paimon.PositionOf) {
			t.Error(err)
		}
	}
}

// TestResolverContract: the resolver keeps the resume.Resolver contract
// (resumetest.CheckResolver) with a consumer file, without one and a start
// time, and without either (no position).
func TestResolverContract(t *testing.T) {
	b, tb := newTable(t, 10, nil)
	tb.Consumer("job", 7)
	table := openTable(t, b, tb.Path(), nil)
	for _, tc := range []struct {
		consumer string
		opts     *paimon.Options
		none     bool // no position
	}{
		{"job", nil, false},
		{"new-job", &paimon.Options{StartTime: t0.Add(150 * time.Second)}, false},
		{"new-job", nil, true},
	} {
		r, err := paimon.NewResolver(table, tc.consumer, tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		// The check passes a resolver that fails: say what it answers.
		if _, err := r.Resolve(context.Background()); (err != nil) != tc.none || tc.none && !errors.Is(err, resume.ErrNoPosition) {
			t.Errorf("consumer %s: err %v, want no position: %v", tc.consumer, err, tc.none)
		}
		for _, err := range resumetest.CheckResolver(context.Background(), r) {
			t.Errorf("consumer %s: %v", tc.consumer, err)
		}
	}
}
