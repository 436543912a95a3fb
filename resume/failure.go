package resume

import (
	"fmt"

	"github.com/resumekit/resumekit/resume/redact"
)

// FailurePolicy says what a [Chain] does with the candidates of the other
// resolvers when a resolver fails. Its zero value, [BlockWeaker], is the safe
// one.
type FailurePolicy int

const (
	// BlockWeaker (the zero value) fails closed: a failed resolver blocks
	// every candidate weaker than the best guarantee it could have offered
	// (its [GuaranteeBounder] bound, exactly-once when it has none). A
	// checkpoint store that answers 503 therefore blocks a stateless Kafka
	// start instead of letting it win by default; a failed Kafka resolver
	// (at best replay) blocks nothing that is exact-input or better.
	BlockWeaker FailurePolicy = iota
	// ChooseAnyway chooses among the candidates that were offered as if the
	// failed resolvers had not been asked: a partial result, as kadm returns
	// data and *ShardErrors together. The failures are still reported.
	ChooseAnyway
)

var failurePolicyNames = [...]string{
	BlockWeaker:  "block-weaker",
	ChooseAnyway: "choose-anyway",
}

// Valid reports whether p is BlockWeaker or ChooseAnyway.
func (p FailurePolicy) Valid() bool { return p == BlockWeaker || p == ChooseAnyway }

// String returns block-weaker or choose-anyway, and "FailurePolicy(N)" for
// other values.
func (p FailurePolicy) String() string {
	if p.Valid() {
		return failurePolicyNames[p]
	}
	return fmt.Sprintf("FailurePolicy(%d)", int(p))
}

// MarshalText implements encoding.TextMarshaler; out-of-range values do not
// marshal.
func (p FailurePolicy) MarshalText() ([]byte, error) {
	if !p.Valid() {
		return nil, fmt.Errorf("resume: cannot marshal failure policy %s", p)
	}
	return []byte(failurePolicyNames[p]), nil
}

// UnmarshalText implements encoding.TextUnmarshaler; it accepts the names
// String returns for valid policies.
func (p *FailurePolicy) UnmarshalText(text []byte) error {
	q, err := ParseFailurePolicy(string(text))
	if err != nil {
		return err
	}
	*p = q
	return nil
}

// ParseFailurePolicy returns the failure policy named s (block-weaker or
// choose-anyway).
func ParseFailurePolicy(s string) (FailurePolicy, error) {
	for p := BlockWeaker; p <= ChooseAnyway; p++ {
		if failurePolicyNames[p] == s {
			return p, nil
		}
	}
	return BlockWeaker, fmt.Errorf("resume: unknown failure policy %s (want block-weaker or choose-anyway)", redact.Quote(s))
}

// GuaranteeBounder is an optional interface of a [Resolver]: MaxGuarantee
// returns the best guarantee the resolver can ever offer, whatever it finds
// (flinkckpt: exactly-once; paimon: exact-input; kafkaoffset: replay). Under
// [BlockWeaker] a failed resolver blocks the candidates below its bound; a
// resolver without the method, or whose bound is not a valid guarantee, is
// assumed to offer exactly-once, so its failure blocks every candidate that
// does not restore state. A candidate above its resolver's bound breaks the
// contract and is recorded as a failure.
//
// MaxGuarantee must not do I/O: the chain calls it after Resolve failed.
type GuaranteeBounder interface {
	MaxGuarantee() Guarantee
}

// MaxGuarantee returns the best guarantee r can offer: its
// [GuaranteeBounder] bound when it has a valid one, else [ExactlyOnce]. A nil
// resolver, or a MaxGuarantee that panics, counts as ExactlyOnce too. [Chain]
// and [All] use it; so can a resolver that wraps others.
func MaxGuarantee(r Resolver) (g Guarantee) {
	defer func() {
		if recover() != nil {
			g = ExactlyOnce
		}
	}()
	b, ok := r.(GuaranteeBounder)
	if !ok {
		return ExactlyOnce
	}
	if g := b.MaxGuarantee(); g.Valid() {
		return g
	}
	return ExactlyOnce
}

// WithMaxGuarantee returns r declaring max as its [GuaranteeBounder] bound,
// for a resolver that cannot declare one itself — a [ResolverFunc], or a
// test double such as resumetest.Failing. Wrapped with Replay, its failure
// no longer blocks exact-input or exactly-once candidates. The result
// resolves exactly as r does.
func WithMaxGuarantee(r Resolver, max Guarantee) Resolver {
	return boundedResolver{Resolver: r, max: max}
}

type boundedResolver struct {
	Resolver
	max Guarantee
}

// MaxGuarantee returns the declared bound.
func (b boundedResolver) MaxGuarantee() Guarantee { return b.max }
