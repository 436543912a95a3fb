package resume

import (
	"context"
	"errors"
)

// ErrNoPosition is returned (wrapped) by a resolver that looked and honestly
// found nothing to offer — an empty checkpoint root, a consumer that does not
// exist and no start time — and by [Chain.Resolve] when nothing acceptable was
// offered and no resolver failed. Check it with errors.Is.
var ErrNoPosition = errors.New("resume: no position")

// A Resolver finds one candidate start position from one source.
//
// Resolve returns the resolver's best candidate with a nil error; an error
// wrapping [ErrNoPosition] when it honestly found nothing to offer; or another
// error when it could not look (storage unreachable, bad input). It must
// return promptly once ctx is done, with an error wrapping ctx.Err(). Resolve
// may be called concurrently and more than once, and calls on the same
// unchanged source agree.
//
// A candidate returned with a nil error carries, in this order ([CheckCandidate]
// checks exactly these rules):
//   - a non-nil Position whose Kind is one word (flink-checkpoint), whose
//     String is one non-empty line, and which marshals to JSON (it goes into
//     the decision document);
//   - a valid Guarantee: DataLoss, Replay, ExactInput or ExactlyOnce, and
//     not above the resolver's [MaxGuarantee];
//   - Resolver empty (the chain fills in Name) or equal to Name;
//   - at least one Reason, none empty: what was found and which checks passed;
//   - Warnings with a namespaced code without spaces (kafka.rewind-lag) and a
//     text each.
//
// At may be zero when the time is unknown. Name is one non-empty line.
//
// The chain runs resolvers concurrently, each under [Policy.Timeout]; a resolver
// that panics, ignores its deadline, or breaks the rules above is recorded as a
// failure, never chosen. resumetest.CheckResolver checks an implementation
// against all of it.
//
// A resolver that can never offer exactly-once should also implement
// [GuaranteeBounder] (MaxGuarantee, the best guarantee it can offer; wrap a
// [ResolverFunc] with [WithMaxGuarantee]): when it fails, the chain blocks
// only the candidates below that bound. Without it a failure counts as a lost
// exactly-once candidate and blocks every stateless start.
type Resolver interface {
	// Name identifies the resolver in decisions and reports, e.g.
	// "flink-checkpoints". It must be unique within a chain: [Chain.Resolve]
	// refuses duplicates with [ErrUsage].
	Name() string
	// Resolve returns the best candidate or an error, as described above.
	Resolve(ctx context.Context) (Candidate, error)
}

// ResolverFunc adapts a function to a [Resolver] with the given name. It has
// no [GuaranteeBounder] bound (it counts as exactly-once); wrap it with
// [WithMaxGuarantee] to declare one.
func ResolverFunc(name string, f func(context.Context) (Candidate, error)) Resolver {
	return funcResolver{name: name, f: f}
}

type funcResolver struct {
	name string
	f    func(context.Context) (Candidate, error)
}

func (r funcResolver) Name() string { return r.name }

func (r funcResolver) Resolve(ctx context.Context) (Candidate, error) { return r.f(ctx) }
