package resume_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/resumetest"
)

// bounded is a fixed resolver that declares the bound its package does
// (flinkckpt exactly-once, paimon exact-input, kafkaoffset replay).
func bounded(name string, g, bound resume.Guarantee) resume.Resolver {
	return resume.WithMaxGuarantee(static(name, g, t0), bound)
}

func down(name string, bound resume.Guarantee) resume.Resolver {
	return resume.WithMaxGuarantee(resumetest.Failing(name, errors.New(name+": 503 Service Unavailable")), bound)
}

// TestFailurePolicy runs each scenario under BlockWeaker (the zero value)
// and under ChooseAnyway.
func TestFailurePolicy(t *testing.T) {
	type want struct {
		verdicts []string
		why      map[string]string // the exact Why of an outcome
		result   resume.Result
	}
	for _, tc := range []struct {
		name      string
		resolvers []resume.Resolver
		min       resume.Guarantee
		block     want
		anyway    want
	}{
		{
			name:      "FailedFlinkBlocksKafka",
			resolvers: []resume.Resolver{down("flink-checkpoints", resume.ExactlyOnce), bounded("kafka-offsets", resume.Replay, resume.Replay)},
			block: want{
				verdicts: []string{"flink-checkpoints=failed", "kafka-offsets=rejected"},
				why:      map[string]string{"kafka-offsets": "blocked: flink-checkpoints failed and could have offered exactly-once"},
				result:   resume.ResultFailed,
			},
			anyway: want{verdicts: []string{"flink-checkpoints=failed", "kafka-offsets=chosen"}, result: resume.ResultFailed},
		},
		{
			name:      "FailedKafkaDoesNotBlockPaimon",
			resolvers: []resume.Resolver{bounded("paimon-consumer", resume.ExactInput, resume.ExactInput), down("kafka-offsets", resume.Replay)},
			block:     want{verdicts: []string{"paimon-consumer=chosen", "kafka-offsets=failed"}, result: resume.ResultFailed},
			anyway:    want{verdicts: []string{"paimon-consumer=chosen", "kafka-offsets=failed"}, result: resume.ResultFailed},
		},
		{
			name:      "FailedKafkaBlocksDataLossWhenAllowed",
			resolvers: []resume.Resolver{bounded("paimon-consumer", resume.DataLoss, resume.ExactInput), down("kafka-offsets", resume.Replay)},
			min:       resume.DataLoss,
			block: want{
				verdicts: []string{"paimon-consumer=rejected", "kafka-offsets=failed"},
				why:      map[string]string{"paimon-consumer": "blocked: kafka-offsets failed and could have offered replay"},
				result:   resume.ResultFailed,
			},
			anyway: want{verdicts: []string{"paimon-consumer=chosen", "kafka-offsets=failed"}, result: resume.ResultFailed},
		},
		{
			name:      "ResolverWithoutMaxGuaranteeCountsAsExactlyOnce",
			resolvers: []resume.Resolver{resumetest.Failing("custom", errors.New("custom: timeout")), bounded("paimon-consumer", resume.ExactInput, resume.ExactInput)},
			block: want{
				verdicts: []string{"custom=failed", "paimon-consumer=rejected"},
				why:      map[string]string{"paimon-consumer": "blocked: custom failed and could have offered exactly-once"},
				result:   resume.ResultFailed,
			},
			anyway: want{verdicts: []string{"custom=failed", "paimon-consumer=chosen"}, result: resume.ResultFailed},
		},
		{
			// The ordering subtlety: the failed Paimon could have offered
			// exact-input, which is not above the checkpoint; Kafka loses
			// to the checkpoint on its guarantee, not to the failure.
			name:      "FailureBelowTheBestBlocksNothing",
			resolvers: []resume.Resolver{bounded("flink-checkpoints", resume.ExactlyOnce, resume.ExactlyOnce), down("paimon-consumer", resume.ExactInput), bounded("kafka-offsets", resume.Replay, resume.Replay)},
			block: want{
				verdicts: []string{"flink-checkpoints=chosen", "paimon-consumer=failed", "kafka-offsets=rejected"},
				why:      map[string]string{"kafka-offsets": "replay is weaker than the chosen exactly-once from flink-checkpoints"},
				result:   resume.ResultFailed,
			},
			anyway: want{verdicts: []string{"flink-checkpoints=chosen", "paimon-consumer=failed", "kafka-offsets=rejected"}, result: resume.ResultFailed},
		},
		{
			name:      "BoundEqualToTheCandidateDoesNotBlock",
			resolvers: []resume.Resolver{down("paimon-orders", resume.ExactInput), bounded("paimon-customers", resume.ExactInput, resume.ExactInput)},
			block:     want{verdicts: []string{"paimon-orders=failed", "paimon-customers=chosen"}, result: resume.ResultFailed},
			anyway:    want{verdicts: []string{"paimon-orders=failed", "paimon-customers=chosen"}, result: resume.ResultFailed},
		},
		{
			name:      "FailedPaimonBlocksKafka",
			resolvers: []resume.Resolver{down("paimon-consumer", resume.ExactInput), bounded("kafka-offsets", resume.Replay, resume.Replay)},
			block: want{
				verdicts: []string{"paimon-consumer=failed", "kafka-offsets=rejected"},
				why:      map[string]string{"kafka-offsets": "blocked: paimon-consumer failed and could have offered exact-input"},
				result:   resume.ResultFailed,
			},
			anyway: want{verdicts: []string{"paimon-consumer=failed", "kafka-offsets=chosen"}, result: resume.ResultFailed},
		},
		{
			name:      "EveryBlockingFailureNamed",
			resolvers: []resume.Resolver{down("flink-checkpoints", resume.ExactlyOnce), down("paimon-consumer", resume.ExactInput), down("kafka-a", resume.Replay), bounded("kafka-b", resume.Replay, resume.Replay)},
			block: want{
				verdicts: []string{"flink-checkpoints=failed", "paimon-consumer=failed", "kafka-a=failed", "kafka-b=rejected"},
				why:      map[string]string{"kafka-b": "blocked: flink-checkpoints failed and could have offered exactly-once; paimon-consumer failed and could have offered exact-input"},
				result:   resume.ResultFailed,
			},
			anyway: want{verdicts: []string{"flink-checkpoints=failed", "paimon-consumer=failed", "kafka-a=failed", "kafka-b=chosen"}, result: resume.ResultFailed},
		},
		{
			// A policy rejection comes first: a candidate below the minimum
			// says so, not that it is blocked.
			name:      "BelowMinimumSaysSoNotBlocked",
			resolvers: []resume.Resolver{down("flink-checkpoints", resume.ExactlyOnce), bounded("kafka-offsets", resume.DataLoss, resume.Replay)},
			block: want{
				verdicts: []string{"flink-checkpoints=failed", "kafka-offsets=rejected"},
				why:      map[string]string{"kafka-offsets": "guarantee data-loss is below the minimum replay"},
				result:   resume.ResultFailed,
			},
			anyway: want{
				verdicts: []string{"flink-checkpoints=failed", "kafka-offsets=rejected"},
				why:      map[string]string{"kafka-offsets": "guarantee data-loss is below the minimum replay"},
				result:   resume.ResultFailed,
			},
		},
		{
			// All's bound is its weakest part's: a failed Paimon+Kafka
			// could have offered replay at best, so it does not block
			// another table's consumer.
			name: "FailedAllBoundByWeakestPart",
			resolvers: []resume.Resolver{
				resume.All("paimon+kafka", bounded("paimon-consumer", resume.ExactInput, resume.ExactInput), down("kafka-offsets", resume.Replay)),
				bounded("paimon-other", resume.ExactInput, resume.ExactInput),
			},
			block:  want{verdicts: []string{"paimon+kafka=failed", "paimon-other=chosen"}, result: resume.ResultFailed},
			anyway: want{verdicts: []string{"paimon+kafka=failed", "paimon-other=chosen"}, result: resume.ResultFailed},
		},
		{
			name: "FailedAllWithUnboundedPartBlocks",
			resolvers: []resume.Resolver{
				resume.All("both", resumetest.Failing("custom", errors.New("down")), static("other-custom", resume.ExactlyOnce, t0)),
				bounded("paimon-other", resume.ExactInput, resume.ExactInput),
			},
			block: want{
				verdicts: []string{"both=failed", "paimon-other=rejected"},
				why:      map[string]string{"paimon-other": "blocked: both failed and could have offered exactly-once"},
				result:   resume.ResultFailed,
			},
			anyway: want{verdicts: []string{"both=failed", "paimon-other=chosen"}, result: resume.ResultFailed},
		},
		{
			name:      "NoFailureNothingBlocked",
			resolvers: []resume.Resolver{bounded("kafka-offsets", resume.Replay, resume.Replay)},
			block:     want{verdicts: []string{"kafka-offsets=chosen"}, result: resume.ResultChosen},
			anyway:    want{verdicts: []string{"kafka-offsets=chosen"}, result: resume.ResultChosen},
		},
	} {
		for _, run := range []struct {
			policy resume.FailurePolicy
			want   want
		}{{resume.BlockWeaker, tc.block}, {resume.ChooseAnyway, tc.anyway}} {
			t.Run(tc.name+"/"+run.policy.String(), func(t *testing.T) {
				c := &resume.Chain{Resolvers: tc.resolvers, Policy: resume.Policy{MinGuarantee: tc.min, OnFailure: run.policy}}
				d, err := c.Resolve(context.Background())
				if diff := cmp.Diff(run.want.verdicts, verdicts(d)); diff != "" {
					t.Errorf("verdicts (-want +got):\n%s", diff)
				}
				for _, o := range d.Considered {
					if w, ok := run.want.why[o.Resolver]; ok && o.Why != w {
						t.Errorf("%s: why = %q, want %q", o.Resolver, o.Why, w)
					}
				}
				want := run.want.result
				if d.Chosen != nil && len(d.Failed()) > 0 {
					// A choice beside a failure is a choice (exit 0): it
					// says so with chain.source-failed, for a gate that
					// fails on it.
					want = resume.ResultChosen
					if !d.Chosen.HasWarning(resume.WarnSourceFailed) {
						t.Errorf("chosen beside a failure without %s: %v", resume.WarnSourceFailed, d.Chosen.Warnings)
					}
				} else if d.Chosen != nil && d.Chosen.HasWarning(resume.WarnSourceFailed) {
					t.Errorf("%s without a failure", resume.WarnSourceFailed)
				}
				if got := resume.Classify(d, err); got != want {
					t.Errorf("Classify = %s, want %s (err %v)", got, want, err)
				}
				if len(d.Failed()) > 0 && errors.Is(err, resume.ErrNoPosition) {
					t.Errorf("err = %v: resolvers failed, so not ErrNoPosition", err)
				}
				if d.Chosen == nil && err == nil {
					t.Error("nothing chosen and no error")
				}
				if d.Policy.OnFailure != run.policy {
					t.Errorf("recorded on_failure %s, want %s", d.Policy.OnFailure, run.policy)
				}
			})
		}
	}
}

// TestChainErrNoPosition: the error wraps ErrNoPosition only when nothing
// acceptable was offered and no resolver failed, as database/sql never
// returns ErrNoRows for a broken connection.
func TestChainErrNoPosition(t *testing.T) {
	empty := resumetest.Failing("flink-savepoints", fmt.Errorf("no savepoints under sp/: %w", resume.ErrNoPosition))
	incompatible := resumetest.Failing("flink-checkpoints", fmt.Errorf("chk-3 drops state: %w", errors.Join(resume.ErrNoPosition, resume.ErrIncompatible)))
	for _, tc := range []struct {
		name      string
		resolvers []resume.Resolver
		policy    resume.Policy
		wantIs    bool
		wantClass resume.Result
	}{
		{"NothingOfferedNoFailure", []resume.Resolver{empty}, resume.Policy{}, true, resume.ResultNothingToRestore},
		{"RejectedNoFailure", []resume.Resolver{empty, static("kafka-offsets", resume.DataLoss, t0)}, resume.Policy{}, false, resume.ResultRefused},
		{"TooOld", []resume.Resolver{static("kafka-offsets", resume.Replay, t0)}, resume.Policy{MaxAge: time.Hour, Now: func() time.Time { return t0.Add(2 * time.Hour) }}, false, resume.ResultRefused},
		{"Incompatible", []resume.Resolver{incompatible, empty}, resume.Policy{}, false, resume.ResultIncompatible},
		{"NothingOfferedAndAFailure", []resume.Resolver{empty, down("kafka-offsets", resume.Replay)}, resume.Policy{}, false, resume.ResultFailed},
		{"RejectedAndAFailureChooseAnyway", []resume.Resolver{static("kafka-a", resume.DataLoss, t0), down("kafka-b", resume.Replay)}, resume.Policy{OnFailure: resume.ChooseAnyway}, false, resume.ResultFailed},
		{"Blocked", []resume.Resolver{down("flink-checkpoints", resume.ExactlyOnce), static("kafka-offsets", resume.Replay, t0)}, resume.Policy{}, false, resume.ResultFailed},
		{"EveryResolverFailed", []resume.Resolver{down("a", resume.Replay), down("b", resume.ExactlyOnce)}, resume.Policy{}, false, resume.ResultFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := (&resume.Chain{Resolvers: tc.resolvers, Policy: tc.policy}).Resolve(context.Background())
			if d.Chosen != nil || err == nil {
				t.Fatalf("chosen %+v, err %v: want nothing chosen and an error", d.Chosen, err)
			}
			if got := errors.Is(err, resume.ErrNoPosition); got != tc.wantIs {
				t.Errorf("errors.Is(err, ErrNoPosition) = %v, want %v (err %q)", got, tc.wantIs, err)
			}
			if got := resume.Classify(d, err); got != tc.wantClass {
				t.Errorf("Classify = %s, want %s", got, tc.wantClass)
			}
			// The decision alone (as read back from its document)
			// classifies the same way.
			if got := resume.Classify(d, nil); got != tc.wantClass && tc.wantClass != resume.ResultFailed {
				t.Errorf("Classify(d, nil) = %s, want %s", got, tc.wantClass)
			}
			sentinel := map[resume.Result]error{resume.ResultRefused: resume.ErrRefused, resume.ResultIncompatible: resume.ErrIncompatible, resume.ResultNothingToRestore: resume.ErrNoPosition}[tc.wantClass]
			if sentinel != nil && !errors.Is(err, sentinel) {
				t.Errorf("err %q does not wrap %v", err, sentinel)
			}
			if tc.wantClass != resume.ResultNothingToRestore && (errors.Is(err, resume.ErrRefused) && errors.Is(err, resume.ErrIncompatible)) {
				t.Errorf("err %q wraps two sentinels", err)
			}
		})
	}
}

// TestChainUsage: a chain that cannot be asked is refused before any
// resolver is called, with ErrUsage, never ErrNoPosition.
func TestChainUsage(t *testing.T) {
	var calls atomic.Int32
	counted := func(name string) resume.Resolver {
		return resume.ResolverFunc(name, func(context.Context) (resume.Candidate, error) {
			calls.Add(1)
			return cand(resume.ExactlyOnce, t0), nil
		})
	}
	for _, tc := range []struct {
		name      string
		chain     resume.Chain
		wantInErr string
	}{
		{"EmptyChain", resume.Chain{}, "the chain has no resolvers"},
		{"DuplicateNames", resume.Chain{Resolvers: []resume.Resolver{counted("flink-checkpoints"), counted("kafka-offsets"), counted("flink-checkpoints")}}, `resolvers 1 and 3 are both named "flink-checkpoints"`},
		{"DuplicateAfterDefaultName", resume.Chain{Resolvers: []resume.Resolver{counted(""), counted("resolver-1")}}, `resolvers 1 and 2 are both named "resolver-1"`},
		{"NilResolver", resume.Chain{Resolvers: []resume.Resolver{counted("a"), nil}}, "resolver 2 of the chain is nil"},
		{"UnknownFailurePolicy", resume.Chain{Resolvers: []resume.Resolver{counted("a")}, Policy: resume.Policy{OnFailure: 7}}, "Policy.OnFailure is FailurePolicy(7)"},
		{"UnknownMinGuarantee", resume.Chain{Resolvers: []resume.Resolver{counted("a")}, Policy: resume.Policy{MinGuarantee: 9}}, "Policy.MinGuarantee is Guarantee(9)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls.Store(0)
			d, err := tc.chain.Resolve(context.Background())
			if !errors.Is(err, resume.ErrUsage) || errors.Is(err, resume.ErrNoPosition) {
				t.Errorf("err = %v, want ErrUsage and not ErrNoPosition", err)
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantInErr) {
				t.Errorf("err = %v, want it to say %q", err, tc.wantInErr)
			}
			if d == nil || d.Chosen != nil || len(d.Considered) != 0 {
				t.Fatalf("decision %+v, want one without outcomes", d)
			}
			if n := calls.Load(); n != 0 {
				t.Errorf("%d resolvers called, want none", n)
			}
			if got := resume.Classify(d, err); got != resume.ResultUsage || got.ExitCode() != 2 {
				t.Errorf("Classify = %s (exit %d), want usage (exit 2)", got, got.ExitCode())
			}
			// The refused decision is still a document.
			if _, err := json.Marshal(d); err != nil {
				t.Errorf("marshal: %v", err)
			}
		})
	}
}

func TestDecisionFailed(t *testing.T) {
	d, _ := (&resume.Chain{Resolvers: []resume.Resolver{
		down("a", resume.Replay), static("b", resume.ExactlyOnce, t0), panicker{},
		resumetest.Failing("d", fmt.Errorf("nothing: %w", resume.ErrNoPosition)),
	}}).Resolve(context.Background())
	var got []string
	for _, o := range d.Failed() {
		got = append(got, o.Resolver)
		if o.Verdict != resume.VerdictFailed || o.Err == nil {
			t.Errorf("%s: verdict %s err %v", o.Resolver, o.Verdict, o.Err)
		}
	}
	if diff := cmp.Diff([]string{"a", "boom"}, got); diff != "" {
		t.Errorf("failed (-want +got):\n%s", diff)
	}
	d, err := (&resume.Chain{Resolvers: []resume.Resolver{static("b", resume.ExactlyOnce, t0)}}).Resolve(context.Background())
	if d.Failed() != nil || err != nil {
		t.Errorf("failed %v err %v, want none", d.Failed(), err)
	}
}

func TestClassify(t *testing.T) {
	chosen := &resume.Decision{Chosen: &resume.Candidate{}, Considered: []resume.Outcome{{Resolver: "a", Verdict: resume.VerdictChosen}}}
	partial := &resume.Decision{Chosen: &resume.Candidate{}, Considered: []resume.Outcome{{Resolver: "a", Verdict: resume.VerdictChosen}, {Resolver: "b", Verdict: resume.VerdictFailed, Err: errors.New("x")}}}
	nothing := &resume.Decision{Considered: []resume.Outcome{{Resolver: "a", Verdict: resume.VerdictNoPosition}}}
	refused := &resume.Decision{Considered: []resume.Outcome{{Resolver: "a", Verdict: resume.VerdictRejected, Candidate: &resume.Candidate{Guarantee: resume.DataLoss}}}}
	failed := &resume.Decision{Considered: []resume.Outcome{{Resolver: "a", Verdict: resume.VerdictRejected, Candidate: &resume.Candidate{}}, {Resolver: "b", Verdict: resume.VerdictFailed, Err: errors.New("x")}}}
	for _, tc := range []struct {
		name string
		d    *resume.Decision
		err  error
		want resume.Result
		exit int
	}{
		{"Chosen", chosen, nil, resume.ResultChosen, 0},
		{"ChosenWithAFailure", partial, errors.New("b: x"), resume.ResultChosen, 0},
		{"NothingToRestore", nothing, fmt.Errorf("%w: nothing", resume.ErrNoPosition), resume.ResultNothingToRestore, 3},
		{"Refused", refused, fmt.Errorf("%w: loss", resume.ErrRefused), resume.ResultRefused, 4},
		{"RefusedReadBack", refused, nil, resume.ResultRefused, 4},
		{"Incompatible", nothing, fmt.Errorf("%w: drops state", resume.ErrIncompatible), resume.ResultIncompatible, 5},
		{"NothingChosenFailed", failed, errors.New("b: x"), resume.ResultFailed, 1},
		// The decision alone says a resolver failed: with no error beside
		// it (and with one that reads as "nothing to offer") only the
		// failed outcome makes this a failure, so the rule is what is tested.
		{"NothingChosenFailedNoError", failed, nil, resume.ResultFailed, 1},
		{"NothingChosenFailedNoPositionError", failed, fmt.Errorf("%w: b", resume.ErrNoPosition), resume.ResultFailed, 1},
		{"ContextEnded", nothing, context.Canceled, resume.ResultFailed, 1},
		{"Usage", &resume.Decision{}, fmt.Errorf("%w: empty", resume.ErrUsage), resume.ResultUsage, 2},
		{"NilDecisionNoPosition", nil, resume.ErrNoPosition, resume.ResultNothingToRestore, 3},
		{"NilDecisionOtherError", nil, errors.New("boom"), resume.ResultFailed, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := resume.Classify(tc.d, tc.err)
			if got != tc.want || got.ExitCode() != tc.exit {
				t.Errorf("Classify = %s (exit %d), want %s (exit %d)", got, got.ExitCode(), tc.want, tc.exit)
			}
		})
	}
	if resume.Result(0).ExitCode() != 1 || resume.Result(0).String() != "Result(0)" {
		t.Error("the zero Result must read as a failure")
	}
}

func TestFailurePolicyText(t *testing.T) {
	for p, name := range map[resume.FailurePolicy]string{resume.BlockWeaker: "block-weaker", resume.ChooseAnyway: "choose-anyway"} {
		b, err := p.MarshalText()
		if err != nil || string(b) != name || p.String() != name {
			t.Errorf("%d: %q %v", int(p), b, err)
		}
		var back resume.FailurePolicy
		if err := back.UnmarshalText(b); err != nil || back != p {
			t.Errorf("%s round trip: %v %v", name, back, err)
		}
	}
	if resume.BlockWeaker != 0 {
		t.Error("BlockWeaker must be the zero value")
	}
	if _, err := resume.FailurePolicy(5).MarshalText(); err == nil {
		t.Error("FailurePolicy(5) marshalled")
	}
	var p resume.FailurePolicy
	if err := p.UnmarshalText([]byte("ignore")); err == nil {
		t.Error("unknown name accepted")
	}
}

type badBound struct {
	resume.Resolver
	g     resume.Guarantee
	panic bool
}

func (b badBound) MaxGuarantee() resume.Guarantee {
	if b.panic {
		panic("no bound")
	}
	return b.g
}

func TestMaxGuarantee(t *testing.T) {
	r := static("a", resume.Replay, t0)
	for _, tc := range []struct {
		name string
		r    resume.Resolver
		want resume.Guarantee
	}{
		{"NoMethod", r, resume.ExactlyOnce},
		{"Nil", nil, resume.ExactlyOnce},
		{"Declared", resume.WithMaxGuarantee(r, resume.Replay), resume.Replay},
		{"InvalidBound", badBound{Resolver: r, g: resume.GuaranteeUnknown}, resume.ExactlyOnce},
		{"PanickingBound", badBound{Resolver: r, panic: true}, resume.ExactlyOnce},
		{"AllWeakestPart", resume.All("both", resume.WithMaxGuarantee(r, resume.ExactInput), resume.WithMaxGuarantee(r, resume.Replay)), resume.Replay},
		{"AllPartWithoutBound", resume.All("both", r, resume.WithMaxGuarantee(r, resume.ExactInput)), resume.ExactInput},
		{"AllNoBounds", resume.All("both", r), resume.ExactlyOnce},
		{"ResolverFunc", resume.ResolverFunc("f", nil), resume.ExactlyOnce},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := resume.MaxGuarantee(tc.r); got != tc.want {
				t.Errorf("MaxGuarantee = %s, want %s", got, tc.want)
			}
		})
	}
	// The wrapper resolves as the resolver it wraps.
	c, err := resume.WithMaxGuarantee(r, resume.Replay).Resolve(context.Background())
	if err != nil || c.Guarantee != resume.Replay || resume.WithMaxGuarantee(r, resume.Replay).Name() != "a" {
		t.Errorf("wrapped: %+v %v", c, err)
	}
}

// TestCandidateAboveItsBoundIsAFailure: a bound that a resolver breaks is a
// broken contract, so the chain cannot be misled into blocking too little.
func TestCandidateAboveItsBoundIsAFailure(t *testing.T) {
	liar := resume.WithMaxGuarantee(static("liar", resume.ExactlyOnce, t0), resume.Replay)
	d, err := (&resume.Chain{Resolvers: []resume.Resolver{liar, static("b", resume.Replay, t0)}}).Resolve(context.Background())
	if err == nil || !strings.Contains(err.Error(), "offered guarantee exactly-once, above its MaxGuarantee replay") {
		t.Errorf("err = %v", err)
	}
	// It failed with the bound it declared: replay blocks nothing at replay.
	if d.Considered[0].Verdict != resume.VerdictFailed || d.Chosen == nil || d.Chosen.Resolver != "b" {
		t.Errorf("verdicts %v", verdicts(d))
	}
}

func TestDecisionRecordsPolicyTimeAndVersion(t *testing.T) {
	now := time.Date(2026, 11, 29, 13, 0, 0, 0, time.FixedZone("CET", 3600))
	p := resume.Policy{MaxAge: time.Hour, Now: func() time.Time { return now }, OnFailure: resume.ChooseAnyway}
	d, err := (&resume.Chain{Resolvers: []resume.Resolver{static("a", resume.Replay, t0.Add(2*time.Hour))}, Policy: p}).Resolve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !d.DecidedAt.Equal(now) || d.DecidedAt.Location() != time.UTC {
		t.Errorf("decided at %v, want %v in UTC", d.DecidedAt, now)
	}
	want := resume.Policy{MinGuarantee: resume.Replay, MaxAge: time.Hour, OnFailure: resume.ChooseAnyway}
	if d.Policy.Now != nil || d.Policy.MinGuarantee != want.MinGuarantee || d.Policy.MaxAge != want.MaxAge || d.Policy.OnFailure != want.OnFailure {
		t.Errorf("policy %+v, want %+v", d.Policy, want)
	}
	if d.Version != resume.ModuleVersion() || d.Version == "" {
		t.Errorf("version %q", d.Version)
	}
}

// TestAllWithoutPartsIsUsage: All with no parts is a programming error, like
// an empty chain, and the chain's result says so.
func TestAllWithoutPartsIsUsage(t *testing.T) {
	d, err := (&resume.Chain{Resolvers: []resume.Resolver{resume.All("nothing")}}).Resolve(context.Background())
	if !errors.Is(err, resume.ErrUsage) || errors.Is(err, resume.ErrNoPosition) || d.Considered[0].Verdict != resume.VerdictFailed {
		t.Errorf("err = %v, verdicts %v", err, verdicts(d))
	}
	if r := resume.Classify(d, err); r != resume.ResultUsage {
		t.Errorf("Classify = %s, want usage", r)
	}
}
