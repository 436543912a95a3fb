package resumetest_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/resumetest"
)

var good = resume.Candidate{
	Position:  resumetest.Position{PositionKind: "test", Summary: "somewhere"},
	Guarantee: resume.Replay, Reasons: []string{"found it"},
}

func TestCheckResolverPassesGoodOnes(t *testing.T) {
	for _, r := range []resume.Resolver{
		resumetest.Static("static", good),
		resumetest.Failing("empty", fmt.Errorf("nothing here: %w", resume.ErrNoPosition)),
		resume.WithMaxGuarantee(resumetest.Static("bounded", good), resume.Replay),
	} {
		for _, err := range resumetest.CheckResolver(context.Background(), r) {
			t.Errorf("%s: %v", r.Name(), err)
		}
	}
}

// TestCheckResolverReportsEveryViolation feeds broken resolvers to the check
// and expects each rule to be named.
func TestCheckResolverReportsEveryViolation(t *testing.T) {
	var flip atomic.Int32
	for _, tc := range []struct {
		name string
		r    resume.Resolver
		want []string
	}{
		{"EmptyName", resumetest.Static("", good), []string{"Name() is empty"}},
		{"AboveItsBound", resume.WithMaxGuarantee(resumetest.Static("liar", good), resume.DataLoss), []string{"guarantee replay, above its MaxGuarantee data-loss"}},
		{"NilPosition", resume.ResolverFunc("nil", func(context.Context) (resume.Candidate, error) {
			return resume.Candidate{Guarantee: resume.Replay}, nil
		}), []string{"returned no position and no error", "cancelled context returned a candidate"}},
		{"UnknownGuaranteeNoReasons", resume.ResolverFunc("zero", func(ctx context.Context) (resume.Candidate, error) {
			if ctx.Err() != nil {
				return resume.Candidate{}, ctx.Err()
			}
			return resume.Candidate{Position: resumetest.Position{PositionKind: "two words", Summary: "a\nb"}}, nil
		}), []string{"guarantee unknown", "no Reasons", "want one word", "want one non-empty line"}},
		{"IgnoresCancel", resume.ResolverFunc("deaf", func(context.Context) (resume.Candidate, error) {
			return good, nil
		}), []string{"cancelled context returned a candidate"}},
		{"WrongCancelError", resume.ResolverFunc("wrong", func(ctx context.Context) (resume.Candidate, error) {
			if ctx.Err() != nil {
				return resume.Candidate{}, errors.New("cancelled, but not wrapped")
			}
			return good, nil
		}), []string{"does not wrap context.Canceled"}},
		{"Panics", resume.ResolverFunc("panic", func(context.Context) (resume.Candidate, error) {
			panic("oops")
		}), []string{"Resolve panicked: oops"}},
		{"ConcurrentDisagree", resume.ResolverFunc("flaky", func(ctx context.Context) (resume.Candidate, error) {
			if ctx.Err() != nil {
				return resume.Candidate{}, ctx.Err()
			}
			if flip.Add(1)%2 == 0 {
				return resume.Candidate{}, errors.New("sometimes")
			}
			return good, nil
		}), []string{"concurrent calls disagree"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			flip.Store(0)
			errs := resumetest.CheckResolver(context.Background(), tc.r)
			var all []string
			for _, e := range errs {
				all = append(all, e.Error())
			}
			joined := strings.Join(all, "\n")
			for _, w := range tc.want {
				if !strings.Contains(joined, w) {
					t.Errorf("violations %q: missing %q", all, w)
				}
			}
		})
	}
}

func ExampleCheckResolver() {
	r := resume.ResolverFunc("mine", func(ctx context.Context) (resume.Candidate, error) {
		return resume.Candidate{Position: resumetest.Position{PositionKind: "test", Summary: "here"}, Guarantee: resume.Replay}, nil
	})
	for _, err := range resumetest.CheckResolver(context.Background(), r) {
		fmt.Println(err)
	}
	// Output:
	// resolver "mine": no Reasons: say what was found and which checks passed
	// resolver "mine": Resolve with a cancelled context returned a candidate (test "here" (replay)) instead of an error
}

// TestStaticSaysWhyItFails (issue 33 item 14): a Static candidate without
// Reasons was rejected by the chain as a contract breach, so a user's
// restart test expecting a failure passed for the wrong reason; Static's
// Resolve now says so itself, wrapping the contract error.
func TestStaticSaysWhyItFails(t *testing.T) {
	r := resumetest.Static("ckpt", resume.Candidate{Position: resumetest.Position{PositionKind: "test", Summary: "p"}, Guarantee: resume.ExactlyOnce})
	_, err := r.Resolve(context.Background())
	var ce *resume.ContractError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), `resumetest.Static("ckpt"): the candidate it was given is not one a resolver may offer`) ||
		!strings.Contains(err.Error(), "no Reasons") {
		t.Errorf("err %v", err)
	}
	good := resumetest.Static("ckpt", resume.Candidate{Position: resumetest.Position{PositionKind: "test", Summary: "p"}, Guarantee: resume.ExactlyOnce, Reasons: []string{"found"}})
	if _, err := good.Resolve(context.Background()); err != nil {
		t.Errorf("a good candidate: %v", err)
	}
}
