package resume_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/resumetest"
)

// panicky is a position whose String panics.
type panicky struct{ resumetest.Position }

func (panicky) String() string { panic("boom") }

// unmarshalable is a position whose JSON fails.
type unmarshalable struct {
	resumetest.Position
	C chan int `json:"c"`
}

func (u unmarshalable) MarshalJSON() ([]byte, error) { return nil, errors.New("no JSON for me") }

// TestCheckCandidate holds one case per rule the Resolver doc lists.
func TestCheckCandidate(t *testing.T) {
	good := cand(resume.Replay, t0)
	for _, tc := range []struct {
		name   string
		change func(c *resume.Candidate)
		want   []string // substrings of the problems, in order; nil: no error
	}{
		{"Good", func(*resume.Candidate) {}, nil},
		{"GoodWithOwnName", func(c *resume.Candidate) { c.Resolver = "r" }, nil},
		{"NilPosition", func(c *resume.Candidate) { c.Position = nil }, []string{"returned no position and no error"}},
		{"KindTwoWords", func(c *resume.Candidate) { c.Position = pos("two words", "s") }, []string{`Position.Kind() is "two words"`}},
		{"KindEmpty", func(c *resume.Candidate) { c.Position = pos("", "s") }, []string{`Position.Kind() is ""`}},
		{"StringSpansLines", func(c *resume.Candidate) { c.Position = pos("k", "a\nb") }, []string{"want one non-empty line"}},
		{"StringEmpty", func(c *resume.Candidate) { c.Position = pos("k", " ") }, []string{"want one non-empty line"}},
		{"StringPanics", func(c *resume.Candidate) { c.Position = panicky{pos("k", "s")} }, []string{"Position.String panicked: boom"}},
		{"NoJSON", func(c *resume.Candidate) { c.Position = unmarshalable{Position: pos("k", "s")} }, []string{"does not marshal to JSON"}},
		{"UnknownGuarantee", func(c *resume.Candidate) { c.Guarantee = 0 }, []string{"guarantee unknown"}},
		{"GuaranteeOutOfRange", func(c *resume.Candidate) { c.Guarantee = 9 }, []string{"guarantee Guarantee(9): want data-loss, replay"}},
		{"OtherResolverName", func(c *resume.Candidate) { c.Resolver = "other" }, []string{`Candidate.Resolver is "other"`}},
		{"NoReasons", func(c *resume.Candidate) { c.Reasons = nil }, []string{"no Reasons"}},
		{"EmptyReason", func(c *resume.Candidate) { c.Reasons = []string{"ok", " "} }, []string{"Reasons[1] is empty"}},
		{"WarningWithoutCode", func(c *resume.Candidate) { c.Warnings = []resume.Warning{{Text: "careful"}} }, []string{`Warnings[0] has code ""`}},
		{"WarningCodeWithSpace", func(c *resume.Candidate) { c.Warnings = []resume.Warning{{Code: "a b", Text: "x"}} }, []string{`Warnings[0] has code "a b"`}},
		{"WarningWithoutText", func(c *resume.Candidate) { c.Warnings = []resume.Warning{{Code: "x.y"}} }, []string{"Warnings[0] (x.y) has no text"}},
		{"AboveMaxGuarantee", func(c *resume.Candidate) { c.Guarantee = resume.ExactInput }, []string{"offered guarantee exact-input, above its MaxGuarantee replay"}},
		{"EveryProblemAtOnce", func(c *resume.Candidate) { *c = resume.Candidate{Resolver: "x"} }, []string{"no position", "guarantee unknown", "Candidate.Resolver", "no Reasons"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := good
			c.Reasons = append([]string(nil), good.Reasons...)
			tc.change(&c)
			// Bound at replay, as kafkaoffset is; the good candidate is a replay.
			err := resume.CheckCandidate(resume.WithMaxGuarantee(resume.ResolverFunc("r", nil), resume.Replay), c)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("CheckCandidate = %v, want nil", err)
				}
				return
			}
			var ce *resume.ContractError
			if !errors.As(err, &ce) || ce.Resolver != "r" {
				t.Fatalf("CheckCandidate = %v, want a *ContractError for r", err)
			}
			if len(ce.Problems) < len(tc.want) {
				t.Fatalf("problems %q, want %d", ce.Problems, len(tc.want))
			}
			joined := strings.Join(ce.Problems, "\n")
			for _, w := range tc.want {
				if !strings.Contains(joined, w) {
					t.Errorf("problems %q lack %q", ce.Problems, w)
				}
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("Error() spans lines: %q", err)
			}

			// The chain and CheckResolver apply the same rule: the chain
			// records the resolver as failed with this very error, and
			// CheckResolver reports each problem as a violation.
			// A raw resolver: resumetest.Static refuses such candidates
			// itself (it says why its fixture is bad).
			r := resume.WithMaxGuarantee(resume.ResolverFunc("r", func(context.Context) (resume.Candidate, error) { return c, nil }), resume.Replay)
			d, cerr := (&resume.Chain{Resolvers: []resume.Resolver{r}}).Resolve(context.Background())
			var chainCE *resume.ContractError
			if d.Considered[0].Verdict != resume.VerdictFailed || !errors.As(cerr, &chainCE) {
				t.Fatalf("chain: verdict %s, err %v; want failed with the ContractError", d.Considered[0].Verdict, cerr)
			}
			if diff := cmp.Diff(ce.Problems, chainCE.Problems); diff != "" {
				t.Errorf("chain problems (-CheckCandidate +chain):\n%s", diff)
			}
			var got []string
			for _, v := range resumetest.CheckResolver(context.Background(), r) {
				got = append(got, v.Error())
			}
			for _, p := range ce.Problems {
				if !strings.Contains(strings.Join(got, "\n"), p) {
					t.Errorf("CheckResolver violations %q lack %q", got, p)
				}
			}
		})
	}
}

// TestAllChecksItsParts: a part that breaks the contract fails the whole,
// with the part named.
func TestAllChecksItsParts(t *testing.T) {
	noReasons := cand(resume.Replay, t0)
	noReasons.Reasons = nil
	_, err := resume.All("both", static("a", resume.Replay, t0), resumetest.Static("b", noReasons)).Resolve(context.Background())
	var ce *resume.ContractError
	if !errors.As(err, &ce) || ce.Resolver != "b" || !strings.Contains(err.Error(), "part b") {
		t.Errorf("err = %v, want part b's ContractError", err)
	}
}
