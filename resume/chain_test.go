package resume_test

import (
	"context"
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

var t0 = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

func pos(kind, summary string) resumetest.Position {
	return resumetest.Position{PositionKind: kind, Summary: summary}
}

func cand(g resume.Guarantee, at time.Time) resume.Candidate {
	return resume.Candidate{Position: pos("test", "p"), Guarantee: g, At: at, Reasons: []string{"found"}}
}

func static(name string, g resume.Guarantee, at time.Time) resume.Resolver {
	return resumetest.Static(name, cand(g, at))
}

// verdicts summarises a decision as "name=verdict" in chain order plus the winner.
func verdicts(d *resume.Decision) []string {
	var out []string
	for _, o := range d.Considered {
		out = append(out, o.Resolver+"="+o.Verdict.String())
	}
	return out
}

func TestChainSelection(t *testing.T) {
	now := t0.Add(time.Hour)
	for _, tc := range []struct {
		name      string
		resolvers []resume.Resolver
		policy    resume.Policy
		want      []string
		wantWhy   map[string]string // substring of Why per loser
		wantErrIs error
	}{
		{
			name:      "HigherGuaranteeWinsOverNewer",
			resolvers: []resume.Resolver{static("a", resume.Replay, t0.Add(time.Minute)), static("b", resume.ExactlyOnce, t0)},
			want:      []string{"a=rejected", "b=chosen"},
			wantWhy:   map[string]string{"a": "replay is weaker than the chosen exactly-once from b"},
		},
		{
			name:      "SameGuaranteeNewerWins",
			resolvers: []resume.Resolver{static("a", resume.ExactlyOnce, t0), static("b", resume.ExactlyOnce, t0.Add(time.Second))},
			want:      []string{"a=rejected", "b=chosen"},
			wantWhy:   map[string]string{"a": "same guarantee exactly-once, but older"},
		},
		{
			name:      "FullTieChainOrderWins",
			resolvers: []resume.Resolver{static("a", resume.ExactInput, t0), static("b", resume.ExactInput, t0)},
			want:      []string{"a=chosen", "b=rejected"},
			wantWhy:   map[string]string{"b": "comes first in the chain"},
		},
		{
			name:      "KnownTimeBeatsUnknownTime",
			resolvers: []resume.Resolver{static("a", resume.Replay, time.Time{}), static("b", resume.Replay, t0)},
			want:      []string{"a=rejected", "b=chosen"},
			wantWhy:   map[string]string{"a": "its time is unknown"},
		},
		{
			name:      "BothTimesUnknownChainOrder",
			resolvers: []resume.Resolver{static("a", resume.Replay, time.Time{}), static("b", resume.Replay, time.Time{})},
			want:      []string{"a=chosen", "b=rejected"},
		},
		{
			name:      "ZeroMinGuaranteeMeansReplayDataLossRejected",
			resolvers: []resume.Resolver{static("loss", resume.DataLoss, t0)},
			want:      []string{"loss=rejected"},
			wantWhy:   map[string]string{"loss": "data-loss is below the minimum replay"},
			wantErrIs: resume.ErrRefused,
		},
		{
			name:      "ExplicitDataLossMinimumAllowsIt",
			resolvers: []resume.Resolver{static("loss", resume.DataLoss, t0)},
			policy:    resume.Policy{MinGuarantee: resume.DataLoss},
			want:      []string{"loss=chosen"},
		},
		{
			name:      "MinimumExactlyOnceRefusesStatelessRestart",
			resolvers: []resume.Resolver{static("consumer", resume.ExactInput, t0.Add(time.Minute)), static("ckpt", resume.ExactlyOnce, t0)},
			policy:    resume.Policy{MinGuarantee: resume.ExactlyOnce},
			want:      []string{"consumer=rejected", "ckpt=chosen"},
			wantWhy:   map[string]string{"consumer": "below the minimum exactly-once"},
		},
		{
			name:      "MinimumIsInclusive",
			resolvers: []resume.Resolver{static("a", resume.ExactInput, t0)},
			policy:    resume.Policy{MinGuarantee: resume.ExactInput},
			want:      []string{"a=chosen"},
		},
		{
			name:      "MaxAgeBoundaryIsInclusive",
			resolvers: []resume.Resolver{static("edge", resume.Replay, now.Add(-time.Hour))},
			policy:    resume.Policy{MaxAge: time.Hour},
			want:      []string{"edge=chosen"},
		},
		{
			name:      "MaxAgeOneNanosecondTooOld",
			resolvers: []resume.Resolver{static("old", resume.ExactlyOnce, now.Add(-time.Hour-time.Nanosecond)), static("young", resume.Replay, now.Add(-time.Minute))},
			policy:    resume.Policy{MaxAge: time.Hour},
			want:      []string{"old=rejected", "young=chosen"},
			wantWhy:   map[string]string{"old": "older than the max age 1h0m0s"},
		},
		{
			name:      "MaxAgeRejectsUnknownAge",
			resolvers: []resume.Resolver{static("a", resume.ExactlyOnce, time.Time{})},
			policy:    resume.Policy{MaxAge: time.Hour},
			want:      []string{"a=rejected"},
			wantWhy:   map[string]string{"a": "age unknown"},
			wantErrIs: resume.ErrRefused,
		},
		{
			name:      "NoPositionIsNotAFailure",
			resolvers: []resume.Resolver{resumetest.Failing("empty", fmt.Errorf("no checkpoints: %w", resume.ErrNoPosition)), static("b", resume.Replay, t0)},
			want:      []string{"empty=no-position", "b=chosen"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.policy.Now = func() time.Time { return now }
			c := &resume.Chain{Resolvers: tc.resolvers, Policy: tc.policy}
			d, err := c.Resolve(context.Background())
			if d == nil {
				t.Fatal("nil decision")
			}
			if diff := cmp.Diff(tc.want, verdicts(d)); diff != "" {
				t.Errorf("verdicts (-want +got):\n%s", diff)
			}
			if tc.wantErrIs != nil {
				if !errors.Is(err, tc.wantErrIs) {
					t.Errorf("err = %v, want errors.Is %v", err, tc.wantErrIs)
				}
				if d.Chosen != nil {
					t.Errorf("chosen %v with an error", d.Chosen)
				}
			} else if err != nil {
				t.Errorf("err = %v, want nil", err)
			}
			for _, o := range d.Considered {
				if w, ok := tc.wantWhy[o.Resolver]; ok && !strings.Contains(o.Why, w) {
					t.Errorf("%s: why = %q, want it to contain %q", o.Resolver, o.Why, w)
				}
				if o.Verdict == resume.VerdictRejected && o.Why == "" {
					t.Errorf("%s rejected without a reason", o.Resolver)
				}
				if o.Verdict == resume.VerdictChosen && d.Chosen != o.Candidate {
					t.Errorf("Decision.Chosen is not the chosen outcome's candidate")
				}
			}
		})
	}
}

func TestChainWarnings(t *testing.T) {
	t.Run("NewerProgressElsewhere", func(t *testing.T) {
		c := &resume.Chain{Resolvers: []resume.Resolver{
			static("ckpt", resume.ExactlyOnce, t0),
			static("consumer", resume.ExactInput, t0.Add(5*time.Minute)),
		}}
		d, err := c.Resolve(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Chosen.Warnings) != 1 || d.Chosen.Warnings[0].Code != resume.WarnNewerProgress || !strings.Contains(d.Chosen.Warnings[0].Text, "consumer shows newer progress (at 2026-11-29T10:05:00Z)") {
			t.Errorf("warnings = %q", d.Chosen.Warnings)
		}
	})
	t.Run("StatelessWinner", func(t *testing.T) {
		c := &resume.Chain{Resolvers: []resume.Resolver{static("consumer", resume.ExactInput, t0)}}
		d, _ := c.Resolve(context.Background())
		if d.Chosen == nil || len(d.Chosen.Warnings) != 1 || !d.Chosen.HasWarning(resume.WarnStateStartsEmpty) || !strings.Contains(d.Chosen.Warnings[0].Text, "operator state starts empty") {
			t.Errorf("chosen %+v: want the empty-state warning", d.Chosen)
		}
	})
	t.Run("ResolverCandidateNotMutated", func(t *testing.T) {
		orig := cand(resume.Replay, t0)
		orig.Warnings = []resume.Warning{{Code: "test.own", Text: "own"}}
		r := resumetest.Static("a", orig)
		d, _ := (&resume.Chain{Resolvers: []resume.Resolver{r}}).Resolve(context.Background())
		if len(d.Chosen.Warnings) != 2 || len(orig.Warnings) != 1 {
			t.Errorf("chosen warnings %q, original %q", d.Chosen.Warnings, orig.Warnings)
		}
	})
}

type panicker struct{}

func (panicker) Name() string { return "boom" }
func (panicker) Resolve(context.Context) (resume.Candidate, error) {
	panic("index out of range")
}

// stubborn ignores its context and returns only when released.
type stubborn struct{ release chan struct{} }

func (s stubborn) Name() string { return "stubborn" }
func (s stubborn) Resolve(context.Context) (resume.Candidate, error) {
	<-s.release
	return cand(resume.ExactlyOnce, t0), nil
}

func TestChainFailures(t *testing.T) {
	errStorage := errors.New("storage unreachable")
	t.Run("FailureAndSuccessMixedChooseAnyway", func(t *testing.T) {
		c := &resume.Chain{Resolvers: []resume.Resolver{
			resumetest.Failing("bad", fmt.Errorf("list ck/: %w", errStorage)),
			static("good", resume.Replay, t0),
		}, Policy: resume.Policy{OnFailure: resume.ChooseAnyway}}
		d, err := c.Resolve(context.Background())
		if !errors.Is(err, errStorage) {
			t.Errorf("err = %v, want it to wrap the failure", err)
		}
		if errors.Is(err, resume.ErrNoPosition) {
			t.Errorf("err = %v: a position was chosen, so not ErrNoPosition", err)
		}
		if d.Chosen == nil || d.Chosen.Resolver != "good" {
			t.Errorf("partial result lost: chosen %+v", d.Chosen)
		}
		if d.Considered[0].Verdict != resume.VerdictFailed || !errors.Is(d.Considered[0].Err, errStorage) {
			t.Errorf("failed outcome = %+v", d.Considered[0])
		}
	})
	t.Run("AllFailing", func(t *testing.T) {
		errA, errB := errors.New("a broke"), errors.New("b broke\nsecond line")
		c := &resume.Chain{Resolvers: []resume.Resolver{resumetest.Failing("a", errA), resumetest.Failing("b", errB)}}
		d, err := c.Resolve(context.Background())
		if d.Chosen != nil {
			t.Error("chose something")
		}
		for _, want := range []error{errA, errB} {
			if !errors.Is(err, want) {
				t.Errorf("err does not wrap %v", want)
			}
		}
		if errors.Is(err, resume.ErrNoPosition) {
			t.Errorf("err = %v: resolvers failed, so not ErrNoPosition", err)
		}
		lines := strings.Split(err.Error(), "\n")
		if len(lines) != 3 || !strings.HasPrefix(lines[0], "a: ") || !strings.HasPrefix(lines[1], "b: b broke; second line") || lines[2] != "resume: nothing chosen" {
			t.Errorf("err lines = %q, want one line per failure in chain order, then the nothing-chosen line", lines)
		}
	})
	t.Run("PanicRecovered", func(t *testing.T) {
		c := &resume.Chain{Resolvers: []resume.Resolver{panicker{}, static("ok", resume.Replay, t0)}}
		d, err := c.Resolve(context.Background())
		var pe *resume.PanicError
		if !errors.As(err, &pe) || pe.Resolver != "boom" || len(pe.Stack) == 0 {
			t.Errorf("err = %v, want a PanicError for boom with a stack", err)
		}
		// A panic is a failure: by default it blocks what boom could have
		// beaten (it has no bound: exactly-once).
		if d.Chosen != nil || d.Considered[1].Why != "blocked: boom failed and could have offered exactly-once" {
			t.Errorf("chosen = %+v, ok's why %q", d.Chosen, d.Considered[1].Why)
		}
		c.Policy.OnFailure = resume.ChooseAnyway
		if d, _ := c.Resolve(context.Background()); d.Chosen == nil || d.Chosen.Resolver != "ok" {
			t.Errorf("choose-anyway: chosen = %+v", d.Chosen)
		}
	})
	t.Run("IgnoresContextPastTimeout", func(t *testing.T) {
		s := stubborn{release: make(chan struct{})}
		defer close(s.release)
		c := &resume.Chain{Resolvers: []resume.Resolver{s, static("ok", resume.Replay, t0)}, Policy: resume.Policy{Timeout: 20 * time.Millisecond}}
		d, err := c.Resolve(context.Background())
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v, want DeadlineExceeded", err)
		}
		// A timeout is a failure: it blocks the weaker replay.
		if d.Considered[0].Verdict != resume.VerdictFailed || d.Chosen != nil || !strings.HasPrefix(d.Considered[1].Why, "blocked: stubborn failed") {
			t.Errorf("verdicts %v, chosen %+v, why %q", verdicts(d), d.Chosen, d.Considered[1].Why)
		}
	})
	t.Run("NilPositionNilError", func(t *testing.T) {
		r := resume.ResolverFunc("liar", func(context.Context) (resume.Candidate, error) {
			return resume.Candidate{Guarantee: resume.ExactlyOnce}, nil
		})
		d, err := (&resume.Chain{Resolvers: []resume.Resolver{r}}).Resolve(context.Background())
		if err == nil || !strings.Contains(err.Error(), "returned no position and no error") || d.Chosen != nil {
			t.Errorf("err = %v, chosen %+v", err, d.Chosen)
		}
	})
	t.Run("UnknownGuarantee", func(t *testing.T) {
		r := resumetest.Static("zero", resume.Candidate{Position: pos("k", "s")})
		_, err := (&resume.Chain{Resolvers: []resume.Resolver{r}}).Resolve(context.Background())
		if err == nil || !strings.Contains(err.Error(), "guarantee unknown") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("CancelledBeforeStartAsksNobody", func(t *testing.T) {
		var calls atomic.Int32
		r := resume.ResolverFunc("counted", func(context.Context) (resume.Candidate, error) {
			calls.Add(1)
			return cand(resume.ExactlyOnce, t0), nil
		})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		d, err := (&resume.Chain{Resolvers: []resume.Resolver{r}}).Resolve(ctx)
		if !errors.Is(err, context.Canceled) || d.Chosen != nil || calls.Load() != 0 {
			t.Errorf("err = %v, chosen %v, calls %d", err, d.Chosen, calls.Load())
		}
	})
	t.Run("CancelledDuringResolveChoosesNothing", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		quick := resume.ResolverFunc("quick", func(context.Context) (resume.Candidate, error) {
			return cand(resume.ExactlyOnce, t0), nil
		})
		cancelling := resume.ResolverFunc("cancelling", func(ctx context.Context) (resume.Candidate, error) {
			cancel()
			<-ctx.Done()
			return resume.Candidate{}, ctx.Err()
		})
		d, err := (&resume.Chain{Resolvers: []resume.Resolver{quick, cancelling}}).Resolve(ctx)
		if !errors.Is(err, context.Canceled) || d.Chosen != nil {
			t.Errorf("err = %v, chosen %+v", err, d.Chosen)
		}
		// quick answered, but whether before or after the chain saw the
		// cancellation is a race: either way its candidate is not chosen.
		if o := d.Considered[0]; o.Verdict != resume.VerdictFailed && (o.Verdict != resume.VerdictRejected || !strings.Contains(o.Why, "context ended")) {
			t.Errorf("quick outcome = %+v", o)
		}
	})
}

func TestAll(t *testing.T) {
	kafka := resumetest.Static("kafka", resume.Candidate{
		Position: resumetest.Position{PositionKind: "kafka-offsets", Summary: "t: 2 partitions",
			Start: resume.Launch{Options: map[string]string{"scan.startup.mode": "specific-offsets"}}},
		Guarantee: resume.Replay, At: t0, Reasons: []string{"committed offsets"}, Warnings: []resume.Warning{{Code: "kafka.rewind-lag", Text: "lag"}},
	})
	paimon := resumetest.Static("paimon", resume.Candidate{
		Position: resumetest.Position{PositionKind: "paimon-snapshot", Summary: "snapshot 42",
			Start: resume.Launch{Options: map[string]string{"consumer-id": "job"}}},
		Guarantee: resume.ExactInput, At: t0.Add(time.Minute), Reasons: []string{"consumer file"},
	})
	t.Run("WeakestGuaranteeOldestAtUnionLaunch", func(t *testing.T) {
		c, err := resume.All("both", kafka, paimon).Resolve(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if c.Guarantee != resume.Replay || !c.At.Equal(t0) {
			t.Errorf("guarantee %s at %v, want replay at %v", c.Guarantee, c.At, t0)
		}
		// The union, and each source table's own options: a hint per table
		// (a Kafka table refuses a Paimon table's consumer-id).
		want := resume.Launch{Options: map[string]string{"scan.startup.mode": "specific-offsets", "consumer-id": "job"},
			Sources: []resume.SourceOptions{{Table: "kafka", Options: map[string]string{"scan.startup.mode": "specific-offsets"}}, {Table: "paimon", Options: map[string]string{"consumer-id": "job"}}}}
		if diff := cmp.Diff(want, c.Position.Launch()); diff != "" {
			t.Errorf("launch (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"kafka: committed offsets", "paimon: consumer file"}, c.Reasons); diff != "" {
			t.Errorf("reasons (-want +got):\n%s", diff)
		}
		if c.Position.Kind() != "all" || c.Position.String() != "kafka: t: 2 partitions + paimon: snapshot 42" {
			t.Errorf("position %s %q", c.Position.Kind(), c.Position.String())
		}
	})
	t.Run("FailingPartFailsTheWhole", func(t *testing.T) {
		errDown := errors.New("broker down")
		_, err := resume.All("both", kafka, resumetest.Failing("k2", errDown)).Resolve(context.Background())
		if !errors.Is(err, errDown) || !strings.Contains(err.Error(), "part k2") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("PartWithNothingIsNoPosition", func(t *testing.T) {
		_, err := resume.All("both", kafka, resumetest.Failing("p", fmt.Errorf("no consumer: %w", resume.ErrNoPosition))).Resolve(context.Background())
		if !errors.Is(err, resume.ErrNoPosition) {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("ConflictingOptionsFail", func(t *testing.T) {
		other := resumetest.Static("kafka2", resume.Candidate{
			Position:  resumetest.Position{PositionKind: "kafka-offsets", Summary: "u", Start: resume.Launch{Options: map[string]string{"scan.startup.mode": "timestamp"}}},
			Guarantee: resume.Replay, At: t0, Reasons: []string{"x"},
		})
		_, err := resume.All("both", kafka, other).Resolve(context.Background())
		if err == nil || !strings.Contains(err.Error(), `"scan.startup.mode" differently`) {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("UnknownAtMakesWholeUnknown", func(t *testing.T) {
		c, err := resume.All("both", kafka, static("noTime", resume.Replay, time.Time{})).Resolve(context.Background())
		if err != nil || !c.At.IsZero() {
			t.Errorf("at %v err %v, want unknown", c.At, err)
		}
	})
	t.Run("Contract", func(t *testing.T) {
		for _, err := range resumetest.CheckResolver(context.Background(), resume.All("both", kafka, paimon)) {
			t.Error(err)
		}
	})
}

func TestGuaranteeText(t *testing.T) {
	for g := resume.DataLoss; g <= resume.ExactlyOnce; g++ {
		b, err := g.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back resume.Guarantee
		if err := back.UnmarshalText(b); err != nil || back != g {
			t.Errorf("%s round trip: %v %v", g, back, err)
		}
	}
	if _, err := resume.GuaranteeUnknown.MarshalText(); err == nil {
		t.Error("GuaranteeUnknown marshalled")
	}
	var g resume.Guarantee
	if err := g.UnmarshalText([]byte("best-effort")); err == nil {
		t.Error("unknown name accepted")
	}
	if resume.DataLoss >= resume.Replay || resume.Replay >= resume.ExactInput || resume.ExactInput >= resume.ExactlyOnce {
		t.Error("ladder not ordered worst to best")
	}
	if resume.VerdictChosen != 1 {
		t.Error("verdicts must start at 1")
	}
}

func TestSingleFailureIsOneLine(t *testing.T) {
	errBoom := errors.New("boom\nsecond line")
	_, err := (&resume.Chain{Resolvers: []resume.Resolver{resumetest.Failing("a", errBoom), static("b", resume.ExactlyOnce, t0)}}).Resolve(context.Background())
	if !errors.Is(err, errBoom) || strings.Contains(err.Error(), "\n") {
		t.Errorf("err = %q, want one line wrapping the failure", err)
	}
}

// TestAllFailureWithEmptyPartStaysAFailure: one part has nothing, another
// failed: the whole is a failure (not "no position"), so the chain reports it.
func TestAllFailureWithEmptyPartStaysAFailure(t *testing.T) {
	errDown := errors.New("connection refused")
	both := resume.All("both",
		resumetest.Failing("paimon", fmt.Errorf("no consumer: %w", resume.ErrNoPosition)),
		resumetest.Failing("kafka", errDown))
	d, err := (&resume.Chain{Resolvers: []resume.Resolver{both, static("ckpt", resume.ExactlyOnce, t0)}}).Resolve(context.Background())
	if !errors.Is(err, errDown) || d.Considered[0].Verdict != resume.VerdictFailed {
		t.Errorf("err = %v, verdict %s: want the failure reported", err, d.Considered[0].Verdict)
	}
	if errors.Is(d.Considered[0].Err, resume.ErrNoPosition) {
		t.Errorf("the failure reads as no position: %v", d.Considered[0].Err)
	}
	if !strings.Contains(d.Considered[0].Err.Error(), "part paimon: no consumer") {
		t.Errorf("the empty part is not mentioned: %v", d.Considered[0].Err)
	}
}

// TestOtherSourceNamed (issue 33 item 10): a Paimon consumer and a Kafka
// group resolved as alternatives (not --together): the consumer is chosen
// exact-input while the Kafka candidate found the job's Kafka input lost;
// the chosen candidate names that, not only OTHERS. A checkpoint chosen
// (the whole job's state) says nothing of the kind.
func TestOtherSourceNamed(t *testing.T) {
	paimon := resumetest.Static("paimon-consumer", resume.Candidate{
		Position:  resumetest.Position{PositionKind: "paimon-snapshot", Summary: "snapshot 58"},
		Guarantee: resume.ExactInput, At: t0, Reasons: []string{"consumer file"},
	})
	kafka := resumetest.Static("kafka-offsets", resume.Candidate{
		Position: lossyPosition{resumetest.Position{PositionKind: "kafka-offsets", Summary: "orders: partition:0,offset:50 (group g)"},
			[]resume.Fact{{Label: resume.FactLoss, Text: "orders/0: 40 records (offsets 10..49)"}}},
		Guarantee: resume.DataLoss, At: t0, Reasons: []string{"data loss on 1 partition(s)"},
	})
	d, err := (&resume.Chain{Resolvers: []resume.Resolver{paimon, kafka}}).Resolve(context.Background())
	if err != nil || d.Chosen == nil || d.Chosen.Resolver != "paimon-consumer" {
		t.Fatalf("chosen %+v, %v", d.Chosen, err)
	}
	want := "kafka-offsets, another source not chosen, found data-loss, lost orders/0: 40 records (offsets 10..49) at orders: partition:0,offset:50 (group g)"
	if !d.Chosen.HasWarning(resume.WarnOtherSource) || !strings.Contains(strings.Join(warningTexts(d.Chosen), "\n"), want) {
		t.Errorf("warnings %q, want %q", d.Chosen.Warnings, want)
	}
	ckpt := static("flink-checkpoints", resume.ExactlyOnce, t0)
	d, err = (&resume.Chain{Resolvers: []resume.Resolver{ckpt, kafka}}).Resolve(context.Background())
	if err != nil || d.Chosen.HasWarning(resume.WarnOtherSource) {
		t.Errorf("a restored checkpoint: %v, %v", d.Chosen, err)
	}
}

// TestStateLostShown (issue 33 item 15): a source that found the job's
// state and could restore none of it (its error wraps ErrRefused, as
// flinkckpt.ErrBroken does) is exit 4, and the report says "state lost"
// with what, not a plain no-position like an empty location.
func TestStateLostShown(t *testing.T) {
	lost := resumetest.Failing("flink-checkpoints", fmt.Errorf("flinkckpt: every snapshot that completed is broken: %w", errors.Join(resume.ErrNoPosition, resume.ErrRefused)))
	empty := resumetest.Failing("paimon-consumer", fmt.Errorf("paimon: no consumer: %w", resume.ErrNoPosition))
	d, err := (&resume.Chain{Resolvers: []resume.Resolver{lost, empty}}).Resolve(context.Background())
	if resume.Classify(d, err) != resume.ResultRefused || !d.Considered[0].StateLost() || d.Considered[1].StateLost() {
		t.Fatalf("%v, %v", resume.Classify(d, err), err)
	}
	text := d.ExplainWidth(0)
	if !strings.Contains(text, "flink-checkpoints  state lost (no-position, exit 4): flinkckpt: every snapshot that completed is broken") ||
		!strings.Contains(text, "paimon-consumer    no-position: paimon: no consumer") {
		t.Errorf("report:\n%s", text)
	}
}
