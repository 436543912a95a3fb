package resume

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-multierror"
)

// Policy says which candidates a [Chain] may choose. The zero value means:
// Replay or better, any age, no timeout, the wall clock.
type Policy struct {
	// MinGuarantee is the weakest acceptable guarantee; 0 means Replay, so
	// DataLoss is never chosen unless asked for explicitly.
	MinGuarantee Guarantee
	// MaxAge rejects candidates whose At is older than Now()-MaxAge; a
	// candidate with a zero At fails the check ("age unknown"). 0: no limit.
	MaxAge time.Duration
	// Timeout bounds each resolver's Resolve call; 0: none. Resolvers run
	// concurrently, so it also bounds the whole chain.
	Timeout time.Duration
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
}

func (p Policy) minGuarantee() Guarantee {
	if p.MinGuarantee == GuaranteeUnknown {
		return Replay
	}
	return p.MinGuarantee
}

func (p Policy) now() time.Time {
	if p.Now == nil {
		return time.Now()
	}
	return p.Now()
}

// Chain asks every resolver and picks the safest acceptable candidate.
type Chain struct {
	// Resolvers are asked concurrently; their order breaks ties.
	Resolvers []Resolver
	// Policy filters the candidates.
	Policy Policy
}

// PanicError is the failure recorded for a resolver that panicked.
type PanicError struct {
	Resolver string // the resolver's name
	Value    any    // the value passed to panic
	Stack    []byte // the goroutine's stack at the panic
}

// Error says which resolver panicked and with what value.
func (e *PanicError) Error() string {
	return fmt.Sprintf("resume: resolver %s panicked: %v", e.Resolver, e.Value)
}

// Resolve asks every resolver concurrently, each under the policy's timeout,
// and chooses: candidates below MinGuarantee or older than MaxAge are rejected;
// of the rest the highest guarantee wins, then the newest At, then chain order.
//
// It always returns a non-nil Decision with one outcome per resolver in chain
// order. The error is nil only when no resolver failed; otherwise it names
// each failure on one line, in chain order, and errors.Is / errors.As reach
// each cause. With failures, Chosen may still be set. When nothing acceptable
// was offered, the error wraps [ErrNoPosition]. When ctx ends before the
// decision, nothing is chosen and the error wraps ctx.Err(); resolvers are not
// called at all if ctx has already ended.
func (c *Chain) Resolve(ctx context.Context) (*Decision, error) {
	d := &Decision{Considered: make([]Outcome, len(c.Resolvers))}
	answers := make([]answer, len(c.Resolvers))
	var wg sync.WaitGroup
	for i, r := range c.Resolvers {
		d.Considered[i].Resolver = safeName(r, i)
		if ctx.Err() != nil {
			answers[i] = answer{err: fmt.Errorf("not asked: %w", ctx.Err())}
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = call(ctx, r, d.Considered[i].Resolver, c.Policy.Timeout)
		}()
	}
	wg.Wait()

	var failures *multierror.Error
	var offered []int
	for i := range answers {
		o := &d.Considered[i]
		a := answers[i]
		if a.err == nil {
			a.err = validate(a.cand, o.Resolver)
		}
		switch {
		case a.err == nil:
			cand := a.cand.clone()
			if cand.Resolver == "" {
				cand.Resolver = o.Resolver
			}
			o.Candidate = cand
			offered = append(offered, i)
		case errors.Is(a.err, ErrNoPosition) && ctx.Err() == nil:
			o.Verdict, o.Err = VerdictNoPosition, a.err
		default:
			o.Verdict, o.Err = VerdictFailed, a.err
			failures = multierror.Append(failures, fmt.Errorf("%s: %w", o.Resolver, a.err))
		}
	}

	if err := ctx.Err(); err != nil {
		for _, i := range offered {
			d.Considered[i].Verdict = VerdictRejected
			d.Considered[i].Why = "the context ended before the decision: nothing is chosen"
		}
		failures = multierror.Append(failures, fmt.Errorf("resume: nothing chosen: %w", err))
		return d, finish(failures)
	}

	cands := make([]*Candidate, len(offered))
	for k, i := range offered {
		cands[k] = d.Considered[i].Candidate
	}
	winner, whys := choose(cands, c.Policy, c.Policy.now())
	for k, i := range offered {
		o := &d.Considered[i]
		if k == winner {
			o.Verdict = VerdictChosen
			o.Why = "safest acceptable candidate"
			continueWarnings(o.Candidate, cands, winner)
			d.Chosen = o.Candidate
			continue
		}
		o.Verdict, o.Why = VerdictRejected, whys[k]
	}
	if d.Chosen == nil {
		failures = multierror.Append(failures, noPositionError(d))
	}
	return d, finish(failures)
}

// answer is one resolver's raw reply.
type answer struct {
	cand Candidate
	err  error
}

// call runs one resolver under the timeout, recovering a panic, and returns at
// the deadline even if the resolver does not.
func call(ctx context.Context, r Resolver, name string, timeout time.Duration) answer {
	rctx, cancel := ctx, context.CancelFunc(func() {})
	if timeout > 0 {
		rctx, cancel = context.WithTimeout(ctx, timeout)
	}
	defer cancel()
	done := make(chan answer, 1) // buffered: a late resolver must not leak blocked
	go func() {
		defer func() {
			if v := recover(); v != nil {
				done <- answer{err: &PanicError{Resolver: name, Value: v, Stack: debug.Stack()}}
			}
		}()
		cand, err := r.Resolve(rctx)
		done <- answer{cand: cand, err: err}
	}()
	select {
	case a := <-done:
		return a
	case <-rctx.Done():
		select {
		case a := <-done: // it returned at the same moment: take its answer
			return a
		default:
		}
		return answer{err: fmt.Errorf("resume: resolver did not return when its context ended: %w", rctx.Err())}
	}
}

func safeName(r Resolver, i int) (name string) {
	defer func() {
		if recover() != nil || name == "" {
			name = fmt.Sprintf("resolver-%d", i+1)
		}
	}()
	if r == nil {
		return ""
	}
	return r.Name()
}

// continueWarnings adds the chain's warnings to the winner: newer progress
// elsewhere, and operator state starting empty.
func continueWarnings(w *Candidate, cands []*Candidate, winner int) {
	if !w.At.IsZero() {
		for k, c := range cands {
			if k != winner && c.At.After(w.At) {
				w.Warnings = append(w.Warnings, Warnf(WarnNewerProgress,
					"%s shows newer progress (at %s) than the chosen position (at %s): input processed after the chosen position is processed again, and sinks without exactly-once see it twice",
					c.Resolver, formatAt(c.At), formatAt(w.At)))
			}
		}
	}
	if w.Guarantee < ExactlyOnce {
		w.Warnings = append(w.Warnings, Warning{Code: WarnStateStartsEmpty, Text: "operator state starts empty: aggregations, joins and deduplication lose what was in state (stateful jobs set the minimum guarantee to exactly-once to refuse such restarts)"})
	}
}

// choose picks the winner among cands (in chain order) and returns a reason
// for every loser. It is pure: the policy and the clock come in as values.
// winner is -1 when no candidate is acceptable.
func choose(cands []*Candidate, p Policy, now time.Time) (winner int, whys []string) {
	whys = make([]string, len(cands))
	min := p.minGuarantee()
	winner = -1
	for k, c := range cands {
		switch {
		case c.Guarantee < min:
			whys[k] = fmt.Sprintf("guarantee %s is below the minimum %s", c.Guarantee, min)
		case p.MaxAge > 0 && c.At.IsZero():
			whys[k] = fmt.Sprintf("age unknown (no time for the position) and the policy has a max age of %s", p.MaxAge)
		case p.MaxAge > 0 && c.At.Before(now.Add(-p.MaxAge)):
			whys[k] = fmt.Sprintf("at %s is %s old, older than the max age %s", formatAt(c.At), now.Sub(c.At).Round(time.Second), p.MaxAge)
		default:
			if winner < 0 || better(c, cands[winner]) {
				winner = k
			}
		}
	}
	if winner < 0 {
		return winner, whys
	}
	w := cands[winner]
	for k, c := range cands {
		if k == winner || whys[k] != "" {
			continue
		}
		switch {
		case c.Guarantee != w.Guarantee:
			whys[k] = fmt.Sprintf("%s is weaker than the chosen %s from %s", c.Guarantee, w.Guarantee, w.Resolver)
		case c.At.IsZero() && !w.At.IsZero():
			whys[k] = fmt.Sprintf("same guarantee %s, but its time is unknown and the chosen %s is at %s", c.Guarantee, w.Resolver, formatAt(w.At))
		case c.At.Before(w.At):
			whys[k] = fmt.Sprintf("same guarantee %s, but older: at %s, the chosen %s is at %s (newer means less read again)", c.Guarantee, formatAt(c.At), w.Resolver, formatAt(w.At))
		default:
			whys[k] = fmt.Sprintf("same guarantee %s and time as the chosen %s, which comes first in the chain", c.Guarantee, w.Resolver)
		}
	}
	return winner, whys
}

// better reports whether a beats b, where a comes later in chain order: a
// higher guarantee, else a strictly newer At (a known time beats an unknown
// one). Equal candidates keep the earlier one.
func better(a, b *Candidate) bool {
	if a.Guarantee != b.Guarantee {
		return a.Guarantee > b.Guarantee
	}
	return a.At.After(b.At)
}

func noPositionError(d *Decision) error {
	var parts []string
	for _, o := range d.Considered {
		if o.Verdict == VerdictRejected || o.Verdict == VerdictNoPosition {
			parts = append(parts, o.Resolver+": "+oneLine(o.why()))
		}
	}
	if len(d.Considered) == 0 {
		parts = append(parts, "the chain has no resolvers")
	}
	if len(parts) == 0 {
		return fmt.Errorf("%w: nothing acceptable was offered", ErrNoPosition)
	}
	return fmt.Errorf("%w: nothing acceptable was offered (%s)", ErrNoPosition, strings.Join(parts, "; "))
}

// finish returns the aggregate error, one line per failure, or nil.
func finish(errs *multierror.Error) error {
	if errs == nil {
		return nil
	}
	if len(errs.Errors) == 1 {
		return oneLineError{errs.Errors[0]}
	}
	errs.ErrorFormat = func(es []error) string {
		lines := make([]string, len(es))
		for i, e := range es {
			lines[i] = oneLine(e.Error())
		}
		return strings.Join(lines, "\n")
	}
	return errs.ErrorOrNil()
}

// oneLineError keeps a single failure's message on one line while errors.Is
// and errors.As still reach it.
type oneLineError struct{ err error }

func (e oneLineError) Error() string { return oneLine(e.err.Error()) }
func (e oneLineError) Unwrap() error { return e.err }
