// Package resumetest helps users test their restart logic and their own
// [resume.Resolver] implementations.
//
// [Static] and [Failing] are resolvers with a fixed answer, for testing code
// that builds or consumes a [resume.Chain]; [Position] is a plain position
// for them. [CheckResolver] runs the contract every resolver must keep —
// a name, a position with every success, a valid guarantee within the
// resolver's bound, an error wrapping context.Canceled on a cancelled
// context, agreement between concurrent calls — and returns every
// violation, not just the first, the way testing/fstest.TestFS does for
// file systems:
//
//	func TestMyResolver(t *testing.T) {
//		r := newMyResolver(...)
//		for _, err := range resumetest.CheckResolver(context.Background(), r) {
//			t.Error(err)
//		}
//	}
//
// [CheckPosition] does the same for a resolver package's position type:
// value receivers, JSON that reads back through a decision document into a
// position with the same kind, summary and launch, and a PositionOf that
// refuses everything else. Every resolver package of resumekit runs both.
//
// Every resumekit test helper (this package, blobtest, s3test, paimontest,
// kafkaoffsettest) takes the same small [TB]; a *testing.T is one, and [Run]
// makes one for code that is not a test — Examples, demo programs.
//
// Storage faults for resolver tests live in the sibling package blobtest; an
// in-process S3 endpoint in s3test. Both are about buckets, not about the
// chain.
//
// # Errors
//
// [CheckResolver] and [CheckPosition] return []error, each a [*Violation]
// naming the resolver (or the position's kind) and the broken rule; the rules
// for a candidate are resume.CheckCandidate's. [Run]
// returns the message of the Fatalf that ended its function as an error.
package resumetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/resumekit/resumekit/resume"
)

// Position is a position with fixed fields, for tests. Its JSON is its
// fields.
type Position struct {
	PositionKind string        `json:"kind"`
	Summary      string        `json:"summary"`
	Start        resume.Launch `json:"launch"`
}

var _ resume.Position = Position{}

// Kind returns p.PositionKind.
func (p Position) Kind() string { return p.PositionKind }

// String returns p.Summary.
func (p Position) String() string { return p.Summary }

// Launch returns p.Start.
func (p Position) Launch() resume.Launch { return p.Start }

// Static returns a resolver named name that always offers c. When c has no
// Resolver, the chain fills in name. It declares no bound (a failure of it
// would count as exactly-once); to stand in for a resolver that declares one,
// wrap it: resume.WithMaxGuarantee(Static(...), resume.Replay).
//
// A candidate that breaks the Resolver contract (no Reasons, no Position,
// an invalid guarantee; see [resume.CheckCandidate]) is never offered: Resolve
// returns an error saying why, wrapping the [*resume.ContractError], so a
// test that expects a failure does not pass because its fixture is wrong.
func Static(name string, c resume.Candidate) resume.Resolver {
	var self resume.Resolver
	self = resume.ResolverFunc(name, func(ctx context.Context) (resume.Candidate, error) {
		if err := ctx.Err(); err != nil {
			return resume.Candidate{}, fmt.Errorf("resumetest: %s: %w", name, err)
		}
		out := c // a copy per call: Resolve may run concurrently
		out.Reasons = append([]string(nil), c.Reasons...)
		out.Warnings = append([]resume.Warning(nil), c.Warnings...)
		if err := resume.CheckCandidate(self, out); err != nil {
			return resume.Candidate{}, fmt.Errorf("resumetest.Static(%q): the candidate it was given is not one a resolver may offer, so it stands for a failed source, not for that candidate (fix the fixture): %w", name, err)
		}
		return out, nil
	})
	return self
}

// Failing returns a resolver named name that always fails with err. Pass an
// error wrapping resume.ErrNoPosition for a resolver that found nothing.
// Under the chain's default resume.BlockWeaker its failure blocks every
// candidate below exactly-once; to stand in for a failed Kafka (at best
// replay) or Paimon (at best exact-input) resolver, declare the bound:
//
//	kafka := resume.WithMaxGuarantee(resumetest.Failing("kafka-offsets", err), resume.Replay)
func Failing(name string, err error) resume.Resolver {
	return resume.ResolverFunc(name, func(ctx context.Context) (resume.Candidate, error) {
		if cerr := ctx.Err(); cerr != nil {
			return resume.Candidate{}, fmt.Errorf("resumetest: %s: %w", name, cerr)
		}
		return resume.Candidate{}, err
	})
}

// Violation is one broken rule of the Resolver contract ([CheckResolver]) or
// of the rules for a position type ([CheckPosition]).
type Violation struct {
	// Resolver is the name of the resolver checked; "" for a position.
	Resolver string
	// Position is the kind of the position checked; "" for a resolver.
	Position string
	// Rule says which rule was broken, and how.
	Rule string
}

// Error names the resolver (or the position's kind) and the broken rule.
func (v *Violation) Error() string {
	if v.Resolver == "" && v.Position != "" {
		return fmt.Sprintf("position %q: %s", v.Position, v.Rule)
	}
	return fmt.Sprintf("resolver %q: %s", v.Resolver, v.Rule)
}

// CheckTimeout bounds each call CheckResolver makes. It is a constant, not a
// knob: a resolver that needs longer than this on a test's fixed setup has a
// problem worth reporting.
const CheckTimeout = 30 * time.Second

// CheckResolver calls r several times — with ctx, with an already cancelled
// context, and twice concurrently — and returns every violation of the
// resume.Resolver contract it finds (nil when there are none):
//   - Name is empty or not one line;
//   - Resolve panics, or does not return within CheckTimeout;
//   - a candidate returned with a nil error breaks a rule the Resolver doc
//     lists for it (the rules of resume.CheckCandidate, which the chain
//     applies too: a position, one-word Kind, one-line String, JSON, a valid
//     guarantee not above the resolver's resume.MaxGuarantee, Resolver empty
//     or Name, Reasons, coded Warnings), one violation per broken rule;
//   - with a cancelled context: a candidate instead of an error, or an error
//     that does not wrap context.Canceled;
//   - concurrent calls that disagree (one fails, one succeeds, or they offer
//     different positions or guarantees).
//
// A resolver that honestly has nothing (an error wrapping resume.ErrNoPosition)
// passes. Resolvers that depend on changing external state should be checked
// against a fixed setup.
func CheckResolver(ctx context.Context, r resume.Resolver) []error {
	var errs []error
	name, err := safeName(r)
	if err != nil {
		return []error{&Violation{Resolver: "?", Rule: err.Error()}}
	}
	fail := func(format string, args ...any) {
		errs = append(errs, &Violation{Resolver: name, Rule: fmt.Sprintf(format, args...)})
	}
	if name == "" {
		fail("Name() is empty")
	} else if strings.ContainsAny(name, "\r\n") {
		fail("Name() spans lines")
	}

	first := call(ctx, r)
	if first.err == nil && first.panicked == nil && !first.timedOut {
		checkCandidate(r, first.cand, fail)
	}
	first.report("Resolve", fail)

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	res := call(cctx, r)
	res.report("Resolve with a cancelled context", fail)
	if res.panicked == nil && !res.timedOut {
		switch {
		case res.err == nil:
			fail("Resolve with a cancelled context returned a candidate (%v) instead of an error", describe(res.cand))
		case !errors.Is(res.err, context.Canceled):
			fail("Resolve with a cancelled context returned an error that does not wrap context.Canceled: %v", res.err)
		}
	}

	results := make(chan result, 2)
	for range 2 {
		go func() { results <- call(ctx, r) }()
	}
	a, b := <-results, <-results
	if a.panicked == nil && b.panicked == nil && !a.timedOut && !b.timedOut {
		switch {
		case (a.err == nil) != (b.err == nil):
			fail("concurrent calls disagree: one returned %v, the other %v", a.outcome(), b.outcome())
		case a.err == nil && (a.cand.Guarantee != b.cand.Guarantee || describe(a.cand) != describe(b.cand)):
			fail("concurrent calls disagree: %v vs %v", a.outcome(), b.outcome())
		}
	}
	return errs
}

// checkCandidate reports every problem resume.CheckCandidate finds, one
// violation each.
func checkCandidate(r resume.Resolver, c resume.Candidate, fail func(string, ...any)) {
	var ce *resume.ContractError
	if err := resume.CheckCandidate(r, c); errors.As(err, &ce) {
		for _, p := range ce.Problems {
			fail("%s", p)
		}
	} else if err != nil {
		fail("%v", err)
	}
}

type result struct {
	cand     resume.Candidate
	err      error
	panicked any
	timedOut bool
}

func (r result) report(what string, fail func(string, ...any)) {
	if r.panicked != nil {
		fail("%s panicked: %v", what, r.panicked)
	}
	if r.timedOut {
		fail("%s did not return within %s", what, CheckTimeout)
	}
}

func (r result) outcome() string {
	if r.err != nil {
		return "error " + r.err.Error()
	}
	return describe(r.cand)
}

func describe(c resume.Candidate) (s string) {
	if c.Position == nil {
		return "<nil position>"
	}
	defer func() {
		if v := recover(); v != nil {
			s = fmt.Sprintf("<position panicked: %v> (%s)", v, c.Guarantee)
		}
	}()
	return fmt.Sprintf("%s %q (%s)", c.Position.Kind(), c.Position.String(), c.Guarantee)
}

func call(ctx context.Context, r resume.Resolver) result {
	done := make(chan result, 1)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				done <- result{panicked: v}
			}
		}()
		c, err := r.Resolve(ctx)
		done <- result{cand: c, err: err}
	}()
	t := time.NewTimer(CheckTimeout)
	defer t.Stop()
	select {
	case res := <-done:
		return res
	case <-t.C:
		return result{timedOut: true}
	}
}

func safeName(r resume.Resolver) (name string, err error) {
	if r == nil {
		return "", errors.New("the resolver is nil")
	}
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("Name() panicked: %v", v)
		}
	}()
	return r.Name(), nil
}
