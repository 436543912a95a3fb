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
// Replay or better, any age, no timeout, the wall clock, and a failed
// resolver blocks the candidates weaker than what it could have offered.
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
	// MinValidity warns (chain.short-validity) when the chosen candidate's
	// ValidUntil is less than this long after now: its input may leave
	// retention before the job has started and read it. 0: no warning but
	// for a ValidUntil already past, which warns whatever MinValidity is
	// (resumectl's --min-validity defaults to DefaultMinValidity). Not
	// recorded in the decision document.
	MinValidity time.Duration
	// OnFailure says what a failed resolver does to the others' candidates.
	// The zero value, BlockWeaker, blocks every candidate weaker than what
	// the failed resolver could have offered; ChooseAnyway chooses among
	// what was offered.
	OnFailure FailurePolicy
	// OnEvent, when set, receives an EventSourceChecked as each resolver
	// returns (for a progress line, logs or tracing); it must be safe for
	// concurrent use. It is not recorded in the decision.
	OnEvent func(Event)
}

// record returns the policy as a Decision records it: MinGuarantee explicit,
// Now cleared (Decision.DecidedAt records the time).
func (p Policy) record() Policy {
	p.MinGuarantee = p.minGuarantee()
	p.Now = nil
	p.OnEvent = nil
	return p
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

// ErrUsage is what [Chain.Resolve]'s error wraps when the chain itself is
// wrong — no resolvers, a nil resolver, two resolvers with the same name, a
// policy value out of range — detected before any resolver is asked, and
// what [All] returns when it was given no parts. It is a programming or
// configuration error, not an answer about the sources (resumectl exits 2).
// Check it with errors.Is.
var ErrUsage = errors.New("resume: bad chain")

// Resolve asks every resolver concurrently, each under the policy's timeout,
// and chooses: candidates below MinGuarantee or older than MaxAge are rejected;
// under [BlockWeaker] so are the candidates weaker than what a failed
// resolver could have offered ("blocked: …"); of the rest the highest
// guarantee wins, then the newest At, then chain order.
//
// It always returns a non-nil Decision. Before asking anyone it checks the
// chain: no resolvers, a nil resolver, duplicate names or a policy value out
// of range return an error wrapping [ErrUsage] and a Decision without
// outcomes. Otherwise the Decision has one outcome per resolver in chain
// order. The error is nil only when no resolver failed; otherwise it names
// each failure on one line, in chain order, and errors.Is / errors.As reach
// each cause ([Decision.Failed] lists them). With failures, Chosen may still
// be set: under ChooseAnyway, or when no failed resolver could have offered
// more than the chosen candidate; it then carries the warning
// [WarnSourceFailed]. When nothing was chosen and no resolver failed, the
// error wraps the sentinel of its [Result] and the resolvers' no-position
// errors (errors.Is reaches flinkckpt.ErrEmptyLocation, say): [ErrRefused]
// when candidates were refused by the policy, [ErrIncompatible] when a
// resolver's snapshots do not fit the new job, and [ErrNoPosition] — only
// then — when there is nothing to restore (a first deploy). When ctx ends before
// the decision, nothing is chosen and the error wraps ctx.Err(); resolvers are
// not called at all if ctx has already ended.
func (c *Chain) Resolve(ctx context.Context) (*Decision, error) {
	d := &Decision{Policy: c.Policy.record(), Version: ModuleVersion()}
	names, err := c.check()
	if err != nil {
		d.DecidedAt = c.Policy.now().UTC()
		if !d.Policy.MinGuarantee.Valid() || !d.Policy.OnFailure.Valid() {
			d.Policy = Policy{} // not recordable: the document omits it
		}
		return d, err
	}
	d.Considered = make([]Outcome, len(c.Resolvers))
	answers := make([]answer, len(c.Resolvers))
	var wg sync.WaitGroup
	for i, r := range c.Resolvers {
		d.Considered[i].Resolver = names[i]
		if ctx.Err() != nil {
			answers[i] = answer{err: fmt.Errorf("not asked: %w", ctx.Err())}
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = call(ctx, r, names[i], c.Policy.Timeout)
			emit(c.Policy.OnEvent, Event{Kind: EventSourceChecked, Resolver: names[i], Err: answers[i].err})
		}()
	}
	wg.Wait()
	now := c.Policy.now()
	d.DecidedAt = now.UTC()

	var failures *multierror.Error
	var offered []int
	var blockers []blocker
	for i := range answers {
		o := &d.Considered[i]
		a := answers[i]
		bound := MaxGuarantee(c.Resolvers[i])
		if a.err == nil {
			a.err = validate(a.cand, o.Resolver, bound)
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
			cause := a.err
			if errors.Is(cause, ErrNoPosition) {
				// Only when ctx ended: the aggregate must not read as
				// "nothing to offer" while something failed.
				cause = errors.New(cause.Error())
			}
			failures = multierror.Append(failures, fmt.Errorf("%s: %w", o.Resolver, cause))
			if c.Policy.OnFailure == BlockWeaker {
				blockers = append(blockers, blocker{resolver: o.Resolver, bound: bound})
			}
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
	provedLost(cands)  // inputs.go
	sinkPending(cands) // inputs.go
	winner, whys := choose(cands, c.Policy, now, blockers)
	for k, i := range offered {
		o := &d.Considered[i]
		if k == winner {
			o.Verdict = VerdictChosen
			o.Why = "safest acceptable candidate"
			continueWarnings(o.Candidate, cands, winner)
			otherSourceWarnings(o.Candidate, cands, winner)
			validityWarning(o.Candidate, c.Policy.MinValidity, now)
			d.Chosen = o.Candidate
			continue
		}
		o.Verdict, o.Why = VerdictRejected, whys[k]
	}
	if d.Chosen == nil {
		failures = multierror.Append(failures, nothingChosenError(d, failures == nil))
	} else if failures != nil {
		var names []string
		for _, o := range d.Failed() {
			names = append(names, o.Resolver)
		}
		d.Chosen.Warnings = append(d.Chosen.Warnings, Warnf(WarnSourceFailed,
			"chosen although %s failed (%s): %s", strings.Join(names, ", "), c.Policy.OnFailure, sourceFailedWhy(c.Policy.OnFailure)))
	}
	return d, finish(failures)
}

// check returns the outcome names, or an error wrapping ErrUsage for a chain
// that cannot be asked.
func (c *Chain) check() ([]string, error) {
	if len(c.Resolvers) == 0 {
		return nil, fmt.Errorf("%w: the chain has no resolvers", ErrUsage)
	}
	if g := c.Policy.MinGuarantee; g != GuaranteeUnknown && !g.Valid() {
		return nil, fmt.Errorf("%w: Policy.MinGuarantee is %s, not a guarantee", ErrUsage, g)
	}
	if !c.Policy.OnFailure.Valid() {
		return nil, fmt.Errorf("%w: Policy.OnFailure is %s, not block-weaker or choose-anyway", ErrUsage, c.Policy.OnFailure)
	}
	names := make([]string, len(c.Resolvers))
	first := make(map[string]int, len(c.Resolvers))
	for i, r := range c.Resolvers {
		if r == nil {
			return nil, fmt.Errorf("%w: resolver %d of the chain is nil", ErrUsage, i+1)
		}
		names[i] = safeName(r, i)
		if j, dup := first[names[i]]; dup {
			return nil, fmt.Errorf("%w: resolvers %d and %d are both named %q: names identify outcomes and failures, so they must be unique within a chain", ErrUsage, j+1, i+1, names[i])
		}
		first[names[i]] = i
	}
	return names, nil
}

// blocker is a failed resolver under BlockWeaker and the best guarantee it
// could have offered.
type blocker struct {
	resolver string
	bound    Guarantee
}

// blockedWhy returns the reason a candidate of guarantee g is blocked, naming
// every failed resolver that could have offered more, or "" when none could.
func blockedWhy(g Guarantee, blockers []blocker) string {
	var parts []string
	for _, b := range blockers {
		if b.bound > g {
			parts = append(parts, fmt.Sprintf("%s failed and could have offered %s", b.resolver, b.bound))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "blocked: " + strings.Join(parts, "; ")
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
// elsewhere, and operator state starting empty (a winner below exactly-once
// whose launch restores no snapshot).
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
	if w.Guarantee < ExactlyOnce && w.Position.Launch().RestorePath() == "" {
		// A restore graded below exactly-once (its input proved lost)
		// still restores its state.
		w.Warnings = append(w.Warnings, Warning{Code: WarnStateStartsEmpty, Text: "operator state starts empty: aggregations, joins and deduplication lose what was in state (stateful jobs set the minimum guarantee to exactly-once to refuse such restarts)"})
	}
}

// otherSourceWarnings names, on the winner, what each other source's
// candidate found when the winner does not start that candidate's inputs:
// two sources resolved as alternatives (a Paimon consumer, a Kafka group),
// not --together, must not hide the one found lost behind the one chosen.
// A candidate whose inputs the winner starts too ([InputStarter], e.g. a
// restored KafkaSource and the group's commits) is an alternative for the
// same input and says nothing new, and so is a whole job's position (a
// Flink checkpoint, savepoint or salvage: kind flink-*, or a launch that
// restores state), which starts every input the job reads.
func otherSourceWarnings(w *Candidate, cands []*Candidate, winner int) {
	wholeJob := func(c *Candidate) bool {
		return strings.HasPrefix(c.Position.Kind(), "flink-") || c.Position.Launch().RestorePath() != ""
	}
	if w.Guarantee >= ExactlyOnce || wholeJob(w) {
		return // state restored: the whole job's position
	}
	covered := map[string]bool{}
	if is, ok := w.Position.(InputStarter); ok {
		for _, s := range is.InputStarts() {
			covered[s.Input] = true
		}
	}
	for k, c := range cands {
		if k == winner || c == nil || c.Resolver == w.Resolver || wholeJob(c) {
			continue
		}
		if is, ok := c.Position.(InputStarter); ok && len(covered) > 0 {
			starts, all := is.InputStarts(), true
			for _, s := range starts {
				all = all && covered[s.Input]
			}
			if len(starts) > 0 && all {
				continue
			}
		}
		found := c.Guarantee.String()
		if f, ok := c.Position.(Facter); ok {
			var loss []string
			for _, x := range f.Facts() {
				if x.Label == FactLoss {
					loss = append(loss, x.Text)
				}
			}
			if len(loss) > 3 {
				loss = append(loss[:3], fmt.Sprintf("and %d more", len(loss)-3))
			}
			if len(loss) > 0 {
				found += ", lost " + strings.Join(loss, "; ")
			}
		}
		w.Warnings = append(w.Warnings, Warnf(WarnOtherSource, "%s, another source not chosen, found %s at %s: the chosen position does not start its input; if the job reads that input too, this decision does not cover it (resolve the sources together, resumectl --together)",
			c.Resolver, found, c.Position.String()))
	}
}

// DefaultMinValidity is resumectl's --min-validity default: an hour to
// deploy the job before its input may leave retention.
const DefaultMinValidity = time.Hour

// validityWarning warns when the winner's input may leave retention within
// min of now, and whenever its valid_until is already past, whatever min
// is (0 too).
func validityWarning(w *Candidate, min time.Duration, now time.Time) {
	if w.ValidUntil.IsZero() {
		return
	}
	if w.ValidUntil.After(now) && (min <= 0 || w.ValidUntil.Sub(now) >= min) {
		return
	}
	if !w.ValidUntil.After(now) {
		w.Warnings = append(w.Warnings, Warnf(WarnShortValidity, "the position was valid until %s (%s ago), already past: its input may have left retention already; check it before deploying",
			formatAt(w.ValidUntil), now.Sub(w.ValidUntil).Round(time.Second)))
		return
	}
	left := w.ValidUntil.Sub(now).Round(time.Second)
	when := fmt.Sprintf("in %s", left)
	if left <= 0 {
		when = fmt.Sprintf("%s ago", -left)
	}
	w.Warnings = append(w.Warnings, Warnf(WarnShortValidity, "the position is valid until %s (%s), less than the minimum validity %s: its input may leave retention before the job has read it; deploy now, or extend retention first",
		formatAt(w.ValidUntil), when, min))
}

// choose picks the winner among cands (in chain order) and returns a reason
// for every loser. It is pure: the policy, the clock and the failed
// resolvers that block weaker candidates come in as values. winner is -1 when
// no candidate is acceptable.
func choose(cands []*Candidate, p Policy, now time.Time, blockers []blocker) (winner int, whys []string) {
	whys = make([]string, len(cands))
	min := p.minGuarantee()
	winner = -1
	var blocked []int // acceptable but for a failure that could have offered more
	for k, c := range cands {
		switch {
		case c.Guarantee < min:
			whys[k] = fmt.Sprintf("guarantee %s is below the minimum %s", c.Guarantee, min)
		case p.MaxAge > 0 && c.At.IsZero():
			whys[k] = fmt.Sprintf("age unknown (no time for the position) and the policy has a max age of %s", p.MaxAge)
		case p.MaxAge > 0 && c.At.Before(now.Add(-p.MaxAge)):
			whys[k] = fmt.Sprintf("at %s is %s old, older than the max age %s", formatAt(c.At), now.Sub(c.At).Round(time.Second), p.MaxAge)
		case blockedWhy(c.Guarantee, blockers) != "":
			blocked = append(blocked, k)
		default:
			if winner < 0 || better(c, cands[winner]) {
				winner = k
			}
		}
	}
	if winner < 0 {
		for _, k := range blocked {
			whys[k] = blockedWhy(cands[k].Guarantee, blockers)
		}
		return winner, whys
	}
	// A blocked candidate is weaker than every bound that blocks it, and
	// the winner is at least as strong as every bound: it lost on its
	// guarantee, and says so below, whatever the failures.
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

// nothingChosenError says why nothing was chosen, naming every rejected
// candidate and every resolver that had nothing. When noFailures, it wraps
// the sentinel of its [Result] — [ErrRefused] when a candidate was refused,
// else [ErrIncompatible] when a resolver's snapshots do not fit the new job,
// else [ErrNoPosition] — and the no-position errors of the resolvers, so
// that errors.Is reaches their sentinels (flinkckpt.ErrEmptyLocation,
// flinkckpt.ErrIncompatible); [ErrNoPosition] only in the last case. A
// failure is never reported as "nothing to offer".
func nothingChosenError(d *Decision, noFailures bool) error {
	var parts []string
	var causes []error
	for _, o := range d.Considered {
		if o.Verdict == VerdictRejected || o.Verdict == VerdictNoPosition {
			parts = append(parts, o.Resolver+": "+oneLine(o.why()))
		}
		if o.Verdict == VerdictNoPosition && o.Err != nil {
			causes = append(causes, o.Err)
		}
	}
	detail := ""
	if len(parts) > 0 {
		detail = " (" + strings.Join(parts, "; ") + ")"
	}
	if !noFailures {
		return fmt.Errorf("resume: nothing chosen%s", detail)
	}
	switch d.nothingChosen() {
	case ResultRefused:
		return &nothingError{msg: "resume: every candidate was refused by the policy" + detail, sentinel: ErrRefused, causes: causes}
	case ResultIncompatible:
		return &nothingError{msg: "resume: no snapshot fits the new job and nothing else was offered" + detail, sentinel: ErrIncompatible, causes: causes}
	}
	return &nothingError{msg: "resume: no position: nothing to restore" + detail, sentinel: ErrNoPosition, causes: causes, noPosition: true}
}

// nothingError is the chain's error when nothing was chosen and nothing
// failed: errors.Is reaches its sentinel and the resolvers' no-position
// errors, and [ErrNoPosition] only when noPosition (a first deploy), though
// every resolver's no-position error wraps it.
type nothingError struct {
	msg        string
	sentinel   error
	causes     []error
	noPosition bool
}

func (e *nothingError) Error() string { return e.msg }

// Is reports whether target is the sentinel or a cause's, never
// ErrNoPosition unless noPosition.
func (e *nothingError) Is(target error) bool {
	if target == ErrNoPosition {
		return e.noPosition
	}
	if target == e.sentinel {
		return true
	}
	for _, c := range e.causes {
		if errors.Is(c, target) {
			return true
		}
	}
	return false
}

// As finds the first cause matching target.
func (e *nothingError) As(target any) bool {
	for _, c := range e.causes {
		if errors.As(c, target) {
			return true
		}
	}
	return false
}

// sourceFailedWhy says why a choice stands beside a failure.
func sourceFailedWhy(p FailurePolicy) string {
	if p == ChooseAnyway {
		return "the policy chooses anyway, so a failed source may have held something safer"
	}
	return "no failed source could have offered a stronger guarantee than the chosen one"
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
